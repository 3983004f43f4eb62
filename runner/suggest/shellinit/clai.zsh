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

  # _clai_hook_precmd runs first before each prompt: it hands the command
  # preexec kept to clai-hook, with its exit status and duration, and leaves
  # $? as it found it. clai-hook runs in the background of a subshell: the
  # prompt does not wait for it, and $! stays the user's.
  _clai_hook_precmd() {
    local _clai_status=$?
    emulate -L zsh
    [[ -n ${_clai_hook_cmd-} ]] || return $_clai_status
    local _clai_cmd=$_clai_hook_cmd
    local -i _clai_ms=-1 _clai_ts=0
    _clai_hook_cmd=
    if [[ -n ${EPOCHREALTIME-} ]]; then
      (( _clai_ts = EPOCHREALTIME * 1000 ))
      [[ -n ${_clai_hook_t0-} ]] && (( _clai_ms = (EPOCHREALTIME - _clai_hook_t0) * 1000 ))
    fi
    (
      export CLAI_HOOK_SHELL=zsh CLAI_HOOK_PID=$$ CLAI_HOOK_EXIT=$_clai_status CLAI_HOOK_DURATION_MS=$_clai_ms CLAI_HOOK_TS_MS=$_clai_ts
      # A command of more than 8192 characters (up to 32 KiB) goes by stdin.
      if (( ${#_clai_cmd} > 8192 )); then
        $_clai_hook_bin ingest -stdin <<<"$_clai_cmd" &
      else
        CLAI_HOOK_CMD=$_clai_cmd $_clai_hook_bin ingest </dev/null &
      fi
    ) >/dev/null 2>&1
    return $_clai_status
  }

  _clai_hook_exit() {
    emulate -L zsh
    (( ${ZSH_SUBSHELL:-0} == 0 )) || return 0
    CLAI_HOOK_SHELL=zsh CLAI_HOOK_PID=$$ $_clai_hook_bin session-end </dev/null >/dev/null 2>&1
  }

  # _clai_hook_install adds the hooks once, whatever the user's options.
  _clai_hook_install() {
    emulate -L zsh
    (( ${precmd_functions[(Ie)_clai_hook_precmd]} )) || precmd_functions=(_clai_hook_precmd $precmd_functions)
    (( ${preexec_functions[(Ie)_clai_hook_preexec]} )) || preexec_functions+=(_clai_hook_preexec)
    (( ${zshexit_functions[(Ie)_clai_hook_exit]} )) || zshexit_functions+=(_clai_hook_exit)
    if [[ -z ${_clai_hook_session-} ]]; then
      typeset -g _clai_hook_session=1
      typeset -gx CLAI_SESSION_ID="$(CLAI_HOOK_SHELL=zsh CLAI_HOOK_PID=$$ $_clai_hook_bin session-start </dev/null 2>/dev/null)"
    fi
  }
  _clai_hook_install
  unfunction _clai_hook_install
fi
