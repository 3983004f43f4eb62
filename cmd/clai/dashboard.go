//go:build !clai_lean

package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/runner/dashboard"
	"github.com/clai-sh/clai/runner/sessions"
)

func dashboardCommand() *cli.Command {
	return &cli.Command{
		Name:  "dashboard",
		Usage: dashboardUsage,
		Description: "Prints the page's URL with a token, which the browser then keeps in a cookie;\n" +
			"every request needs it. Listens on 127.0.0.1 at a free port unless told otherwise;\n" +
			"listening beyond loopback needs --listen-any. Stops at Ctrl-C. See docs/dashboard.md.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1", Usage: "listen on `ADDR` (a host or IP, with :PORT or not)"},
			&cli.IntFlag{Name: "port", Usage: "listen on `PORT`", DefaultText: "a free one"},
			&cli.BoolFlag{Name: "listen-any", Usage: "allow listening beyond loopback (on all interfaces when --listen is not given)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("dashboard: takes no arguments (see clai dashboard --help)")
			}
			addr, exposed, err := dashboardAddr(c.String("listen"), c.IsSet("listen"), c.Int("port"), c.Bool("listen-any"))
			if err != nil {
				return err
			}
			reg, err := sessions.Open("")
			if err != nil {
				return failure(err)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return failure(fmt.Errorf("dashboard: %w", err))
			}
			token, err := dashboard.NewToken()
			if err != nil {
				_ = ln.Close()
				return failure(err)
			}
			port := ln.Addr().(*net.TCPAddr).Port
			hostname, _ := os.Hostname()
			srv := dashboard.New(sessions.NewSource(reg), dashboard.Config{
				Token:    token,
				Port:     port,
				Exposed:  exposed,
				Hostname: hostname,
				User:     userName(),
				Logf: func(format string, args ...any) {
					fmt.Fprintf(c.App.ErrWriter, "clai dashboard: "+format+"\n", args...)
				},
			})
			url := dashboardURL(ln.Addr().(*net.TCPAddr), hostname, token)
			// The runs of this user put the URL in their notifications,
			// from before it is printed.
			announced, err := reg.AnnounceDashboard(url)
			if err != nil {
				fmt.Fprintf(c.App.ErrWriter, "clai dashboard: warning: notifications will not name this dashboard: %v\n", err)
			} else {
				defer announced.Close()
			}
			printDashboardURL(c.App.Writer, c.App.ErrWriter, ln.Addr().(*net.TCPAddr), url, exposed)
			if err := srv.Serve(c.Context, ln); err != nil {
				return failure(err)
			}
			return nil
		},
	}
}

// dashboardAddr is the address to listen on: listen (with its port, or
// port), loopback unless beyond; exposed says it goes beyond loopback.
func dashboardAddr(listen string, listenSet bool, port int, beyond bool) (addr string, exposed bool, err error) {
	if beyond && !listenSet {
		listen = "0.0.0.0"
	}
	host, p, splitErr := net.SplitHostPort(listen)
	if splitErr != nil {
		host, p = listen, strconv.Itoa(port)
	} else if port != 0 && p != strconv.Itoa(port) {
		return "", false, usageError("dashboard: --listen %s and --port %d name different ports", listen, port)
	}
	if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 65535 {
		return "", false, usageError("dashboard: %q is not a port", p)
	}
	loopback := host == "localhost"
	if ip := net.ParseIP(host); ip != nil {
		loopback = ip.IsLoopback()
	} else if host == "" {
		loopback = false // all interfaces
	}
	if !loopback && !beyond {
		return "", false, usageError("dashboard: listening on %q goes beyond this machine's loopback: add --listen-any to mean it", listen)
	}
	return net.JoinHostPort(host, p), !loopback, nil
}

// dashboardURL is the page's URL with its token: at this machine's name
// when it listens on every interface.
func dashboardURL(addr *net.TCPAddr, hostname, token string) string {
	host := addr.IP.String()
	if addr.IP.IsUnspecified() && hostname != "" {
		host = hostname
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(addr.Port)) + "/?token=" + token
}

// printDashboardURL prints the page's url and, when it listens on addr
// beyond loopback, what that exposes.
func printDashboardURL(out, warn io.Writer, addr *net.TCPAddr, url string, exposed bool) {
	if exposed {
		fmt.Fprintf(warn, "clai dashboard: listening on %s, beyond this machine's loopback: anyone who can reach it\n"+
			"  with the token sees every session's screen (secrets masked) and can answer its questions,\n"+
			"  over plain HTTP, which is not encrypted. Use it on a network you trust, or through an SSH tunnel.\n", addr)
	}
	fmt.Fprintf(out, "clai dashboard: %s\n", url)
}
