package binaries

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

var (
	serverStart = regexp.MustCompile(`^bin/(ossiectl serve|server) `)
	addrFlag    = regexp.MustCompile(`--addr[ =]\S*:(\S+)`)
	pidVar      = regexp.MustCompile(`^([A-Z_]+)=\$!`)
	killVar     = regexp.MustCompile(`(?:^|;\s*)kill \$([A-Z_]+)`)
)

// TestReadmeStopsEveryServer reads the README's shell examples (fenced
// blocks at the margin) in order, as a user pastes them into one shell:
// every server is started in the background (a foreground one leaves the
// user a second shell to carry on in, and keeps running there), and is
// stopped (kill $VAR) before another server binds its port, and by the
// end.
func TestReadmeStopsEveryServer(t *testing.T) {
	f, err := os.Open("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type server struct {
		line int
		port string
		pid  string
	}
	var running []*server
	var last *server
	inBlock, n, started := false, 0, 0
	sc := bufio.NewScanner(f)
	cmd := ""
	for sc.Scan() {
		n++
		raw := sc.Text()
		if strings.HasPrefix(raw, "```") {
			inBlock = !inBlock && strings.HasPrefix(raw, "```sh")
			continue
		}
		if !inBlock {
			continue
		}
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "#") {
			continue
		}
		line, _, _ = strings.Cut(line, " #")
		line = strings.TrimSpace(line)
		if strings.HasSuffix(line, `\`) { // continued on the next line
			cmd += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		cmd += line
		line, cmd = cmd, ""
		if serverStart.MatchString(line) {
			started++
			port := "8080"
			if m := addrFlag.FindStringSubmatch(line); m != nil {
				port = m[1]
			}
			for _, r := range running {
				if r.port == port {
					t.Errorf("README.md:%d: a server binds port %s, still held by the server of line %d", n, port, r.line)
				}
			}
			if !strings.HasSuffix(line, "&") {
				t.Errorf("README.md:%d: a server started in the foreground; start it with & and stop it with kill", n)
				continue
			}
			last = &server{line: n, port: port}
			running = append(running, last)
			continue
		}
		if m := pidVar.FindStringSubmatch(line); m != nil && last != nil {
			last.pid = m[1]
		}
		for _, m := range killVar.FindAllStringSubmatch(line, -1) {
			for i, r := range running {
				if r.pid == m[1] {
					running = append(running[:i], running[i+1:]...)
					break
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if started < 3 {
		t.Fatalf("only %d servers started in the README: is the pattern still right?", started)
	}
	for _, r := range running {
		t.Errorf("README.md:%d: the server started here (port %s) is never stopped", r.line, r.port)
	}
}
