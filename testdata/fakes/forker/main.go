// Command forker starts a grandchild (itself with -child) that shares its
// terminal and sleeps forever ignoring SIGHUP and SIGTERM, prints
//
//	ready parent=PID child=PID
//
// once the grandchild ignores those signals, and waits forever. With -exit it
// exits 0 right after that line, leaving the grandchild holding the terminal
// open. With -own-group the grandchild gets a process group of its own, as a
// job-control shell does for a background job (it stays in the session). With
// -setsid it leaves the session for one of its own, as a daemon does.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	child := flag.Bool("child", false, "be the grandchild")
	exit := flag.Bool("exit", false, "exit once the grandchild runs")
	ownGroup := flag.Bool("own-group", false, "put the grandchild in a process group of its own")
	setsid := flag.Bool("setsid", false, "put the grandchild in a session of its own")
	flag.Parse()
	if *child {
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
		// Tell the parent the signals are ignored (fd 3 is its pipe), so
		// its exit cannot hang us up before we are ready.
		ready := os.NewFile(3, "ready")
		_, _ = ready.Write([]byte{1})
		_ = ready.Close()
		sleepForever()
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "forker:", err)
		os.Exit(2)
	}
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "forker:", err)
		os.Exit(2)
	}
	cmd := exec.Command(self, "-child")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: *ownGroup, Setsid: *setsid}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "forker:", err)
		os.Exit(2)
	}
	_ = w.Close()
	if _, err := r.Read(make([]byte, 1)); err != nil {
		fmt.Fprintln(os.Stderr, "forker: grandchild not ready:", err)
		os.Exit(2)
	}
	fmt.Printf("ready parent=%d child=%d\n", os.Getpid(), cmd.Process.Pid)
	if *exit {
		return
	}
	go func() { _ = cmd.Wait() }()
	sleepForever()
}

func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}
