# clai shell hooks for fish: they tell the clai daemon each command you run.
# Install: clai init fish | source, in ~/.config/fish/config.fish. See docs/suggest.md.
if begin; status is-interactive; or test "$CLAI_HOOK_NONINTERACTIVE" = 1; end; and test -x @HOOK@
  set -g _clai_hook_bin @HOOK@

  # fish's event handlers are functions, which a later line of the config
  # (functions -e) may erase: _clai_hook_define defines them, and each one
  # that runs defines those erased again (_clai_hook_rearm), and says so
  # once. A command whose preexec handler was erased is not recorded; with
  # every handler erased nothing runs to tell.
  function _clai_hook_define
    # _clai_hook_preexec keeps the command line as typed; fish keeps a line
    # that starts with a space out of its history, and so do the hooks.
    function _clai_hook_preexec --on-event fish_preexec
      functions -q _clai_hook_postexec _clai_hook_exit; or _clai_hook_rearm
      set -e _clai_hook_cmd
      string match -q -- ' *' "$argv[1]"; and return
      set -g _clai_hook_cmd "$argv[1]"
    end

    # _clai_hook_postexec runs after each command: when the daemon's socket is
    # there, it appends the command preexec kept, with its exit status and
    # $CMD_DURATION, to the shell's spool file, which the daemon reads. It
    # starts no program, and fish keeps $status for the prompt. fish has no
    # clock of its own: the event's time is when the daemon reads it.
    function _clai_hook_postexec --on-event fish_postexec
      set -l _clai_status $status
      set -l _clai_ms $CMD_DURATION
      functions -q _clai_hook_preexec _clai_hook_exit; or _clai_hook_rearm
      test -n "$_clai_ms"; or set _clai_ms -1
      set -q _clai_hook_cmd[1]; or return $_clai_status
      set -l _clai_cmd $_clai_hook_cmd
      set -e _clai_hook_cmd
      # exit is no step of the work: bash and zsh, which show no prompt after
      # it, do not record it either.
      string match -qr '^\s*exit(\s|;|$)' -- "$_clai_cmd"; and return $_clai_status
      # fish tells of a file it cannot open whatever its stderr: the spool's
      # folder is looked for first.
      if test -n "$_clai_hook_spool"; and test -S "$_clai_hook_sock"; and test -d "$_clai_hook_spooldir"
        # One record (see docs/suggest.md).
        printf 'clai1\0command\0fish\0%s\0%s\0%s\0%s\0%s\0%s\0%s\0\n' \
          "$CLAI_SESSION_ID" $fish_pid 0 $_clai_status $_clai_ms "$PWD" "$_clai_cmd" 2>/dev/null >>"$_clai_hook_spool"
      end
      return $_clai_status
    end

    function _clai_hook_exit --on-event fish_exit
      begin
        set -lx CLAI_HOOK_SHELL fish
        set -lx CLAI_HOOK_PID $fish_pid
        $_clai_hook_bin session-end </dev/null >/dev/null 2>&1
      end
    end
  end

  function _clai_hook_rearm
    _clai_hook_define
    if not set -q _clai_hook_rearmed
      set -g _clai_hook_rearmed 1
      printf '%s\n' 'clai: a clai hook function was erased after clai init; recording re-armed' >&2
    end
  end

  _clai_hook_define

  # clai-hook prints the session id, the daemon's socket and the spool file.
  if not set -q _clai_hook_session
    set -g _clai_hook_session 1
    set -l _clai_out (begin; set -lx CLAI_HOOK_SHELL fish; set -lx CLAI_HOOK_PID $fish_pid; $_clai_hook_bin session-start </dev/null 2>/dev/null; end)
    set -gx CLAI_SESSION_ID "$_clai_out[1]"
    set -g _clai_hook_sock "$_clai_out[2]"
    set -g _clai_hook_spool "$_clai_out[3]"
    set -g _clai_hook_spooldir (string replace -r '/[^/]*$' '' -- "$_clai_out[3]")
  end
end
