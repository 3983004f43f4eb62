# clai shell hooks for bash: they tell the clai daemon each command you run.
# Install: eval "$(clai init bash)" in ~/.bashrc. See docs/suggest.md.
if [[ $- == *i* || ${CLAI_HOOK_NONINTERACTIVE-} == 1 ]] && [[ -x @HOOK@ ]]; then
  _clai_hook_bin=@HOOK@

  # _clai_hook_precmd runs first at each prompt: when the history holds a new
  # command, and the daemon's socket is there, it appends the command with
  # its exit status and duration to the shell's spool file, which the daemon
  # reads. It starts no program and leaves $? and $! as it found them.
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
    if [[ -n ${_clai_hook_spool-} && -S ${_clai_hook_sock-} ]]; then
      local _clai_ms=-1 _clai_ts=0
      if [[ -n $_clai_now ]]; then
        _clai_now=${_clai_now/[.,]/}
        _clai_ts=$(( _clai_now / 1000 ))
        [[ -n $_clai_t0 ]] && _clai_ms=$(( (_clai_now - _clai_t0) / 1000 ))
      else
        builtin printf -v _clai_ts '%(%s)T000' -1
      fi
      # One record (see docs/suggest.md): the command is what `history 1`
      # prints of it, which the daemon takes apart.
      {
        builtin printf 'clai1\0bash-history\0bash\0%s\0%s\0%s\0%s\0%s\0%s\0' \
          "${CLAI_SESSION_ID-}" "$$" "$_clai_ts" "$_clai_status" "$_clai_ms" "$PWD"
        HISTTIMEFORMAT= builtin history 1
        builtin printf '\0\n'
      } 2>/dev/null >>"$_clai_hook_spool"
    fi
    return "$_clai_status"
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
  # clai-hook prints the session id, the daemon's socket and the spool file.
  if [[ -z ${_clai_hook_session-} ]]; then
    _clai_hook_session=1
    _clai_hook_out=$(CLAI_HOOK_SHELL=bash CLAI_HOOK_PID=$$ "$_clai_hook_bin" session-start </dev/null 2>/dev/null)
    { IFS= read -r CLAI_SESSION_ID; IFS= read -r _clai_hook_sock; IFS= read -r _clai_hook_spool; } <<<"$_clai_hook_out"
    unset _clai_hook_out
    export CLAI_SESSION_ID
  fi
fi
