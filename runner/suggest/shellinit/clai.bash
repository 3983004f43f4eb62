# clai shell hooks for bash: they tell the clai daemon each command you run.
# Install: eval "$(clai init bash)" in ~/.bashrc. See docs/suggest.md.
if [[ $- == *i* || ${CLAI_HOOK_NONINTERACTIVE-} == 1 ]] && [[ -x @HOOK@ ]]; then
  _clai_hook_bin=@HOOK@

  # _clai_hook_precmd runs first at each prompt: when the history holds a new
  # command, it hands it to clai-hook with its exit status and duration. It
  # leaves $? as it found it, and the prompt waits for neither the history
  # nor clai-hook: they run in the background of a subshell, which leaves $!
  # the user's too.
  _clai_hook_precmd() {
    local _clai_status=$? _clai_now=${EPOCHREALTIME-} _clai_t0=${_clai_hook_t0-}
    _clai_hook_t0=
    # The first prompt only takes note of where the history is; a prompt with
    # no new history entry follows an empty line or a command the history
    # keeps out (HISTCONTROL, set +o history).
    if [[ -z ${_clai_hook_histcmd-} || ${HISTCMD-} == "${_clai_hook_histcmd-}" ]]; then
      _clai_hook_histcmd=${HISTCMD-}
      return "$_clai_status"
    fi
    _clai_hook_histcmd=$HISTCMD
    local _clai_ms=-1 _clai_ts=
    if [[ -n $_clai_now ]]; then
      _clai_now=${_clai_now/[.,]/}
      _clai_ts=$(( _clai_now / 1000 ))
      [[ -n $_clai_t0 ]] && _clai_ms=$(( (_clai_now - _clai_t0) / 1000 ))
    fi
    ( _clai_hook_send "$_clai_status" "$_clai_ms" "$_clai_ts" & ) >/dev/null 2>&1
    return "$_clai_status"
  }

  # _clai_hook_send STATUS MS TS runs clai-hook with the history's last
  # command; in the background.
  _clai_hook_send() {
    local _clai_cmd
    _clai_cmd=$(HISTTIMEFORMAT= builtin history 1)
    _clai_cmd=${_clai_cmd#"${_clai_cmd%%[![:space:]]*}"}
    _clai_cmd=${_clai_cmd#"${_clai_cmd%%[!0-9]*}"}
    _clai_cmd=${_clai_cmd#\*}
    _clai_cmd=${_clai_cmd#  }
    export CLAI_HOOK_SHELL=bash CLAI_HOOK_PID=$$ CLAI_HOOK_EXIT=$1 CLAI_HOOK_DURATION_MS=$2 CLAI_HOOK_TS_MS=$3
    # A command of more than 8192 characters (up to 32 KiB) goes by stdin.
    if (( ${#_clai_cmd} > 8192 )); then
      exec "$_clai_hook_bin" ingest -stdin <<<"$_clai_cmd"
    fi
    CLAI_HOOK_CMD=$_clai_cmd exec "$_clai_hook_bin" ingest </dev/null
  }

  # bash 5.1 and later run each element of a PROMPT_COMMAND array (4.4 and
  # 5.0 only the first): the hook goes first, to see the command's $?.
  _clai_hook_prompt_array() {
    (( BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1) ))
  }
  _clai_hook_installed() {
    local _clai_pc
    for _clai_pc in "${PROMPT_COMMAND[@]}"; do
      [[ $_clai_pc == *_clai_hook_precmd* ]] && return 0
    done
    return 1
  }
  if ! _clai_hook_installed; then
    if _clai_hook_prompt_array; then
      PROMPT_COMMAND=(_clai_hook_precmd "${PROMPT_COMMAND[@]}")
    else
      # The string form: the hook, then a newline and what was there, so that
      # neither a closing ';' nor '&' of the user's is doubled.
      PROMPT_COMMAND="_clai_hook_precmd${PROMPT_COMMAND:+$'\n'$PROMPT_COMMAND}"
    fi
  fi
  # PS0 (bash 4.4 and later) notes when a command starts, and prints nothing.
  if [[ -n ${EPOCHREALTIME-} && ${PS0-} != *_clai_hook_t0* ]]; then
    PS0="${PS0-}"'${_clai_hook_ps0[_clai_hook_t0=${EPOCHREALTIME/[.,]/},0]-}'
  fi
  if [[ -z ${_clai_hook_session-} ]]; then
    _clai_hook_session=1
    CLAI_SESSION_ID=$(CLAI_HOOK_SHELL=bash CLAI_HOOK_PID=$$ "$_clai_hook_bin" session-start </dev/null 2>/dev/null)
    export CLAI_SESSION_ID
  fi
fi
