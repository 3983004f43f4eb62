# clai shell hooks for bash: they tell the clai daemon each command you run.
# Install: eval "$(clai init bash)" in ~/.bashrc. See docs/suggest.md.
if [[ $- == *i* || ${CLAI_HOOK_NONINTERACTIVE-} == 1 ]] && [[ -x @HOOK@ ]]; then
  _clai_hook_bin=@HOOK@

  # _clai_hook_precmd runs first at each prompt: when a command ran, and the
  # daemon's socket is there, it appends the command with its exit status
  # and duration to the shell's spool file, which the daemon reads. It
  # starts no program and leaves $? and $! as it found them.
  _clai_hook_precmd() {
    local _clai_status=$? _clai_now=${EPOCHREALTIME-} _clai_t0=${_clai_hook_t0-} _clai_ran=${_clai_hook_ran-}
    _clai_hook_t0= _clai_hook_ran= _clai_hook_guard_ran=0
    if [[ ${_clai_hook_rearmed-} == 1 ]]; then
      _clai_hook_rearmed=2
      builtin printf 'clai: PROMPT_COMMAND was replaced after clai init; recording re-armed\n' >&2
    fi
    # The first prompt only takes note of where the history is.
    if [[ -z ${_clai_hook_histcmd-} ]]; then
      _clai_hook_histcmd=${HISTCMD-}
      return "$_clai_status"
    fi
    local _clai_type=bash-history
    if [[ ${HISTCMD-} == "${_clai_hook_histcmd-}" ]]; then
      # The history did not grow: an empty line, or a command it keeps out
      # (HISTCONTROL, set +o history) or moved (erasedups). With PS0 there
      # to tell that a command ran, history 1 goes as a command the daemon
      # takes only if it is not the session's last; without, nothing goes.
      if [[ -z $_clai_ran ]]; then
        return "$_clai_status"
      fi
      _clai_type=bash-history-same
    elif [[ -z $_clai_ran && ${PS0-} == *_clai_hook_ran* ]] && shopt -q promptvars; then
      # The history grew with no command run, PS0 there to tell: it was read
      # again (history -r).
      _clai_hook_histcmd=$HISTCMD
      return "$_clai_status"
    fi
    _clai_hook_histcmd=${HISTCMD-}
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
        builtin printf 'clai1\0%s\0bash\0%s\0%s\0%s\0%s\0%s\0%s\0' \
          "$_clai_type" "${CLAI_SESSION_ID-}" "$$" "$_clai_ts" "$_clai_status" "$_clai_ms" "$PWD"
        HISTTIMEFORMAT= builtin history 1
        builtin printf '\0\n'
      } 2>/dev/null >>"$_clai_hook_spool"
    fi
    return "$_clai_status"
  }

  # _clai_hook_mark runs last at each prompt: where the history is once the
  # user's own PROMPT_COMMAND is done (history -a; history -c; history -r
  # reads it anew).
  _clai_hook_mark() {
    local _clai_status=$?
    _clai_hook_histcmd=${HISTCMD-}
    # A prompt that ends with the hook still first in PROMPT_COMMAND: the rc
    # file is done with it, and the guard (the DEBUG trap set below) goes.
    # The guard ran just before this function only while the DEBUG trap is
    # still the guard: a trap the user set since stays.
    if [[ -n ${_clai_hook_guarded-} && ${PROMPT_COMMAND[0]-} == _clai_hook_precmd* ]]; then
      _clai_hook_guarded=
      (( _clai_hook_guard_ran )) && trap - DEBUG
    fi
    return "$_clai_status"
  }
  # With the trace attribute, a DEBUG trap the function takes away stays
  # away once it returns.
  declare -ft _clai_hook_mark

  # bash 5.1 and later run each element of a PROMPT_COMMAND array (4.4 and
  # 5.0 only the first): the hook goes first, to see the command's $?, and
  # the mark last.
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
  # _clai_hook_arm puts the hook first in PROMPT_COMMAND and the mark last.
  _clai_hook_arm() {
    if _clai_hook_prompt_array; then
      local _clai_pc _clai_pcs=()
      for _clai_pc in "${PROMPT_COMMAND[@]}"; do
        [[ $_clai_pc == _clai_hook_mark || $_clai_pc == _clai_hook_precmd ]] || _clai_pcs+=("$_clai_pc")
      done
      PROMPT_COMMAND=(_clai_hook_precmd "${_clai_pcs[@]}" _clai_hook_mark)
    else
      # The string form: the hook, then a newline and what was there, so that
      # neither a closing ';' nor '&' of the user's is doubled, then the mark.
      PROMPT_COMMAND="_clai_hook_precmd${PROMPT_COMMAND:+$'\n'$PROMPT_COMMAND}"$'\n'_clai_hook_mark
    fi
  }
  _clai_hook_installed || _clai_hook_arm

  # A later line of the rc file (or a prompt framework at the first prompt)
  # may set PROMPT_COMMAND anew, which would leave the hook out and stop the
  # recording without a word, or put a command before it, whose $? the hook
  # would take for the user's. Until a prompt ends with the hook still first
  # in PROMPT_COMMAND, a DEBUG trap looks for it before each command and puts
  # it back first (_clai_hook_rearm), and the next prompt says so once. The trap
  # keeps $? and, passing it on as the last word, $_; it is set only where
  # the user has no DEBUG trap, and taken away by _clai_hook_mark, for a
  # DEBUG trap slows each command a shell runs at the prompt.
  _clai_hook_rearm() {
    [[ ${PROMPT_COMMAND[0]-} == _clai_hook_precmd* ]] && return 0
    _clai_hook_arm
    _clai_hook_rearmed=${_clai_hook_rearmed:-1}
    # At the prompt (not in a file being sourced, where the history is not
    # read yet) the prompt running now holds the old PROMPT_COMMAND: the
    # next one takes note of where the history is from here.
    [[ " ${FUNCNAME[*]} " == *" source "* ]] || _clai_hook_histcmd=${HISTCMD-}
    return 0
  }
  if [[ -z $(trap -p DEBUG) ]]; then
    _clai_hook_guarded=1
    trap -- '(( _clai_hook_guard_ran = 1 )); [[ ${PROMPT_COMMAND[0]-} == _clai_hook_precmd* ]] || _clai_hook_rearm "$_"' DEBUG
  fi
  # PS0 (bash 4.4 and later) notes that a command runs, and when, and prints
  # nothing; only where prompts are expanded (shopt promptvars), or it would
  # print itself.
  if (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) )) &&
    shopt -q promptvars && [[ ${PS0-} != *_clai_hook_ran* ]]; then
    if [[ -n ${EPOCHREALTIME-} ]]; then
      PS0="${PS0-}"'${_clai_hook_ps0[_clai_hook_t0=${EPOCHREALTIME/[.,]/},_clai_hook_ran=1,0]-}'
    else
      PS0="${PS0-}"'${_clai_hook_ps0[_clai_hook_ran=1,0]-}'
    fi
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
