package localproc

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"time"
)

// Spawn starts cmd and returns a channel closed once it has exited and
// log (its output file, may be nil) is closed. On a start failure log is
// closed and the error returned.
func Spawn(cmd *exec.Cmd, log io.Closer) (chan struct{}, error) {
	if err := cmd.Start(); err != nil {
		if log != nil {
			log.Close()
		}
		return nil, err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		if log != nil {
			log.Close()
		}
		close(exited)
	}()
	return exited, nil
}

// Kill kills a spawned process and waits until it has exited.
func Kill(cmd *exec.Cmd, exited <-chan struct{}) {
	_ = cmd.Process.Kill()
	<-exited
}

// WaitHTTP polls GET url every 100 ms until it answers 200, the process
// exits (exited closes) or timeout passes; the error says which, with the
// last answer or failure.
func WaitHTTP(url string, exited <-chan struct{}, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("the process exited")
		default:
		}
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s: %s", url, resp.Status)
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("no answer after %s (last: %v)", timeout, last)
}

// Tail is the last n bytes of the file at path (a log), or the read error.
func Tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
