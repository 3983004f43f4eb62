# clai shell hooks for zsh: they tell the clai daemon each command you run.
# Install: eval "$(clai init zsh)" in ~/.zshrc. See docs/suggest.md.
if [[ -o interactive || ${CLAI_HOOK_NONINTERACTIVE-} == 1 ]] && [[ -x @HOOK@ ]]; then
  zmodload -F zsh/datetime p:EPOCHREALTIME 2>/dev/null
  typeset -g _clai_hook_bin=@HOOK@

  # _clai_hook_preexec keeps the command line as typed and when it started.
  _clai_hook_preexec() {
    emulate -L zsh
    # A line the history keeps out (HIST_IGNORE_SPACE) is not recorded either.
    if [[ -o histignorespace && $1 == ' '* ]]; then
      typeset -g _clai_hook_cmd=
      return
    fi
    typeset -g _clai_hook_cmd=${1:-$3} _clai_hook_t0=${EPOCHREALTIME-}
  }

  # _clai_hook_precmd runs first before each prompt: when the daemon's socket
  # is there, it appends the command preexec kept, with its exit status and
  # duration, to the shell's spool file, which the daemon reads. It starts no
  # program and leaves $? and $! as it found them.
  _clai_hook_precmd() {
    local _clai_status=$?
    emulate -L zsh
    if [[ ${_clai_hook_rearmed-} == 1 ]]; then
      _clai_hook_rearmed=2
      print -ru2 -- 'clai: precmd_functions or preexec_functions were replaced after clai init; recording re-armed'
    fi
    # A prompt with the hooks in place: the rc file is done with them, and
    # the guard goes, if the DEBUG trap is still the guard (it runs before
    # each command, this one's too).
    if [[ -n ${_clai_hook_guarded-} ]]; then
      _clai_hook_guard_ran=0
      _clai_hook_guarded=
      (( _clai_hook_guard_ran )) && _clai_hook_unguard
    fi
    [[ -n ${_clai_hook_cmd-} ]] || return $_clai_status
    # A zsh string may hold NUL bytes, which end a record's field: they go.
    local _clai_cmd=${_clai_hook_cmd//$'\0'/}
    local -i _clai_ms=-1 _clai_ts=0
    _clai_hook_cmd=
    [[ -n ${_clai_hook_spool-} && -S ${_clai_hook_sock-} ]] || return $_clai_status
    if [[ -n ${EPOCHREALTIME-} ]]; then
      (( _clai_ts = EPOCHREALTIME * 1000 ))
      [[ -n ${_clai_hook_t0-} ]] && (( _clai_ms = (EPOCHREALTIME - _clai_hook_t0) * 1000 ))
    fi
    # One record (see docs/suggest.md). zsh tells of a file it cannot open
    # on the stderr of the braces.
    {
      builtin printf 'clai1\0command\0zsh\0%s\0%s\0%s\0%s\0%s\0%s\0%s\0\n' \
        "${CLAI_SESSION_ID-}" $$ $_clai_ts $_clai_status $_clai_ms "$PWD" "$_clai_cmd" >>"$_clai_hook_spool"
    } 2>/dev/null
    return $_clai_status
  }

  _clai_hook_exit() {
    emulate -L zsh
    (( ${ZSH_SUBSHELL:-0} == 0 )) || return 0
    CLAI_HOOK_SHELL=zsh CLAI_HOOK_PID=$$ $_clai_hook_bin session-end </dev/null >/dev/null 2>&1
  }

  # _clai_hook_arm adds the hooks to the hook arrays they are not in, and
  # reports whether it added any.
  _clai_hook_arm() {
    emulate -L zsh
    local -i _clai_added=0
    (( ${precmd_functions[(Ie)_clai_hook_precmd]} )) || { precmd_functions=(_clai_hook_precmd $precmd_functions); _clai_added=1 }
    (( ${preexec_functions[(Ie)_clai_hook_preexec]} )) || { preexec_functions+=(_clai_hook_preexec); _clai_added=1 }
    (( ${zshexit_functions[(Ie)_clai_hook_exit]} )) || { zshexit_functions+=(_clai_hook_exit); _clai_added=1 }
    (( _clai_added ))
  }

  # A later line of the rc file (precmd_functions=(), a framework that sets
  # the arrays anew) may take the hooks out, which would stop the recording
  # without a word. Until a prompt comes with them in place, a DEBUG trap
  # puts them back before each command (_clai_hook_guard), and the next
  # prompt says so once. The trap is set only where the user has none, and
  # taken away at the first prompt with the hooks in place, for a DEBUG trap
  # slows each command a shell runs.
  _clai_hook_guard() {
    _clai_hook_guard_ran=1
    _clai_hook_arm && _clai_hook_rearmed=${_clai_hook_rearmed:-1}
    return 0
  }
  # _clai_hook_unguard takes the guard away, with the traps of the function
  # that calls it left global.
  _clai_hook_unguard() {
    setopt localoptions nolocaltraps
    trap - DEBUG
  }

  # _clai_hook_install adds the hooks once, whatever the user's options.
  _clai_hook_install() {
    emulate -L zsh
    _clai_hook_arm
    # clai-hook prints the session id, the daemon's socket and the spool
    # file.
    if [[ -z ${_clai_hook_session-} ]]; then
      typeset -g _clai_hook_session=1
      local -a _clai_out
      _clai_out=("${(@f)$(CLAI_HOOK_SHELL=zsh CLAI_HOOK_PID=$$ $_clai_hook_bin session-start </dev/null 2>/dev/null)}")
      typeset -gx CLAI_SESSION_ID=${_clai_out[1]-}
      typeset -g _clai_hook_sock=${_clai_out[2]-} _clai_hook_spool=${_clai_out[3]-}
    fi
  }
  _clai_hook_install
  unfunction _clai_hook_install
  if [[ -z ${_clai_hook_guarded-} && $(trap) != *DEBUG* ]]; then
    typeset -g _clai_hook_guarded=1 _clai_hook_guard_ran=0
    trap '_clai_hook_guard' DEBUG
  fi
fi
