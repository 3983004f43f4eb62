//go:build !clai_lean

package main

import (
	"bytes"
	"net"
	"strings"
	"testing"
)

func TestDashboardAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		listen    string
		listenSet bool
		port      int
		beyond    bool
		want      string
		exposed   bool
		err       string
	}{
		{listen: "127.0.0.1", want: "127.0.0.1:0"},
		{listen: "127.0.0.1", port: 8888, want: "127.0.0.1:8888"},
		{listen: "localhost:8888", listenSet: true, want: "localhost:8888"},
		{listen: "[::1]:0", listenSet: true, want: "[::1]:0"},
		{listen: "127.0.0.1", beyond: true, want: "0.0.0.0:0", exposed: true},
		{listen: "192.168.1.5:80", listenSet: true, beyond: true, want: "192.168.1.5:80", exposed: true},
		{listen: "192.168.1.5", listenSet: true, err: "add --listen-any"},
		{listen: "0.0.0.0", listenSet: true, err: "add --listen-any"},
		{listen: ":8080", listenSet: true, err: "add --listen-any"},
		{listen: "example.com", listenSet: true, err: "add --listen-any"},
		{listen: "127.0.0.1:80", listenSet: true, port: 81, err: "different ports"},
		{listen: "127.0.0.1:http", listenSet: true, err: "is not a port"},
		{listen: "127.0.0.1", port: 70000, err: "is not a port"},
	} {
		got, exposed, err := dashboardAddr(tc.listen, tc.listenSet, tc.port, tc.beyond)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("dashboardAddr(%q, port %d, beyond %v): %v, want an error with %q", tc.listen, tc.port, tc.beyond, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want || exposed != tc.exposed {
			t.Errorf("dashboardAddr(%q, port %d, beyond %v) = %q, %v, %v; want %q, %v", tc.listen, tc.port, tc.beyond, got, exposed, err, tc.want, tc.exposed)
		}
	}
}

func TestDashboardURLSaysWhatItExposes(t *testing.T) {
	t.Parallel()
	var out, warn bytes.Buffer
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8123}
	printDashboardURL(&out, &warn, loopback, dashboardURL(loopback, "box", "T"), false)
	if out.String() != "clai dashboard: http://127.0.0.1:8123/?token=T\n" || warn.Len() != 0 {
		t.Fatalf("loopback: %q, %q", out.String(), warn.String())
	}
	out.Reset()
	everywhere := &net.TCPAddr{IP: net.IPv4zero, Port: 8123}
	printDashboardURL(&out, &warn, everywhere, dashboardURL(everywhere, "box", "T"), true)
	if out.String() != "clai dashboard: http://box:8123/?token=T\n" || !strings.Contains(warn.String(), "beyond this machine's loopback") || !strings.Contains(warn.String(), "not encrypted") {
		t.Fatalf("exposed: %q, %q", out.String(), warn.String())
	}
}
