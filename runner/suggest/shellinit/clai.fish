# clai shell hooks for fish: they tell the clai daemon each command you run.
# Install: clai init fish | source, in ~/.config/fish/config.fish. See docs/suggest.md.
if begin; status is-interactive; or test "$CLAI_HOOK_NONINTERACTIVE" = 1; end; and test -x @HOOK@
  set -g _clai_hook_bin @HOOK@

  # _clai_hook_preexec keeps the command line as typed; fish keeps a line
  # that starts with a space out of its history, and so do the hooks.
  function _clai_hook_preexec --on-event fish_preexec
    set -e _clai_hook_cmd
    string match -q -- ' *' "$argv[1]"; and return
    set -g _clai_hook_cmd "$argv[1]"
  end

  # _clai_hook_postexec hands the command preexec kept to clai-hook, with its
  # exit status and $CMD_DURATION; fish keeps $status for the prompt. fish has
  # no clock of its own: the event's time is clai-hook's.
  function _clai_hook_postexec --on-event fish_postexec
    set -l _clai_status $status
    set -l _clai_ms $CMD_DURATION
    test -n "$_clai_ms"; or set _clai_ms -1
    set -q _clai_hook_cmd[1]; or return $_clai_status
    set -l _clai_cmd $_clai_hook_cmd
    set -e _clai_hook_cmd
    begin
      set -lx CLAI_HOOK_SHELL fish
      set -lx CLAI_HOOK_PID $fish_pid
      set -lx CLAI_HOOK_EXIT $_clai_status
      set -lx CLAI_HOOK_DURATION_MS $_clai_ms
      # A command of more than 8192 characters (up to 32 KiB) goes by stdin.
      if test (string length -- "$_clai_cmd") -gt 8192
        printf '%s\n' "$_clai_cmd" | $_clai_hook_bin ingest -stdin >/dev/null 2>&1
      else
        # In the background of a sh that returns at once: the prompt does
        # not wait for clai-hook, and $last_pid stays the user's.
        set -lx CLAI_HOOK_CMD "$_clai_cmd"
        command sh -c '"$0" ingest </dev/null >/dev/null 2>&1 &' $_clai_hook_bin </dev/null >/dev/null 2>&1
      end
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

  if not set -q _clai_hook_session
    set -g _clai_hook_session 1
    set -gx CLAI_SESSION_ID (begin; set -lx CLAI_HOOK_SHELL fish; set -lx CLAI_HOOK_PID $fish_pid; $_clai_hook_bin session-start </dev/null 2>/dev/null; end)
  end
end
