// Package localproc holds what the harnesses that run a server process for
// tests (test/pgtest, test/trinoserver, test/motoserver, test/icebergrest)
// share: one process per test binary started on first use and its skip
// policy (shared.go), picking a free loopback port and reading a process's
// resident memory.
package localproc

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago (the
// caller's server may still lose it to another process: retry on
// "Address already in use").
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// RSS is the resident memory of process pid in bytes (VmRSS in
// /proc/PID/status), 0 if unknown.
func RSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}
