package ossiectl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// drainWait bounds how long the end of an agent's input waits for the
// answers still being computed.
const drainWait = 2 * time.Minute

// drain holds the end of `ossiectl mcp`'s input, and a line that is not a
// JSON-RPC message (which ends the session too), until every request read
// before it has been answered. The MCP session ends when its input does, so an agent
// that writes its requests and closes stdin (a shell pipe, a script) would
// otherwise lose the answers still being computed. Messages are JSON-RPC
// 2.0, one per line (MCP stdio transport); a request is a message with a
// method and an id, its answer the message with that id and no method.
type drain struct {
	mu      sync.Mutex
	changed *sync.Cond
	open    map[string]bool
}

func newDrain() *drain {
	d := &drain{open: map[string]bool{}}
	d.changed = sync.NewCond(&d.mu)
	return d
}

// rpcMessage is what drain reads of a JSON-RPC message.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// messages decodes a line: one message, or a JSON-RPC batch; nil for
// anything else (the session itself answers malformed input).
func messages(line []byte) []rpcMessage {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		var batch []rpcMessage
		if json.Unmarshal(line, &batch) == nil {
			return batch
		}
		return nil
	}
	var m rpcMessage
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return []rpcMessage{m}
}

func (d *drain) mark(line []byte, request bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range messages(line) {
		if len(m.ID) == 0 || string(m.ID) == "null" {
			continue
		}
		switch {
		case request && m.Method != "":
			d.open[string(m.ID)] = true
		case !request && m.Method == "":
			delete(d.open, string(m.ID))
		}
	}
	d.changed.Broadcast()
}

// wait returns when every request read has been answered, or after max.
func (d *drain) wait(max time.Duration) {
	t := time.AfterFunc(max, func() {
		d.mu.Lock()
		d.open = map[string]bool{}
		d.mu.Unlock()
		d.changed.Broadcast()
	})
	defer t.Stop()
	d.mu.Lock()
	for len(d.open) > 0 {
		d.changed.Wait()
	}
	d.mu.Unlock()
}

// reader passes r through line by line, noting requests, and holds EOF
// until they are answered.
func (d *drain) reader(r io.ReadCloser) io.ReadCloser {
	return &drainReader{d: d, src: r, br: bufio.NewReader(r)}
}

type drainReader struct {
	d    *drain
	src  io.Closer
	br   *bufio.Reader
	rest []byte
	eof  error
}

func (r *drainReader) Read(p []byte) (int, error) {
	for len(r.rest) == 0 {
		if r.eof != nil {
			return 0, r.eof
		}
		line, err := r.br.ReadBytes('\n')
		if len(line) > 0 {
			if len(bytes.TrimSpace(line)) > 0 && messages(line) == nil {
				// The session ends on a line that is not a message: the
				// requests before it are answered first.
				r.d.wait(drainWait)
			}
			r.d.mark(line, true)
			r.rest = line
		}
		if err != nil {
			if len(r.rest) == 0 {
				r.d.wait(drainWait)
				return 0, err
			}
			r.eof = err
		}
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	if len(r.rest) == 0 && r.eof != nil {
		r.d.wait(drainWait)
	}
	return n, nil
}

func (r *drainReader) Close() error { return r.src.Close() }

// writer passes w through, noting the answers in each complete line.
func (d *drain) writer(w io.WriteCloser) io.WriteCloser {
	return &drainWriter{d: d, dst: w}
}

type drainWriter struct {
	d   *drain
	dst io.WriteCloser
	buf []byte
}

func (w *drainWriter) Write(p []byte) (int, error) {
	n, err := w.dst.Write(p)
	w.buf = append(w.buf, p[:n]...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.d.mark(w.buf[:i], false)
		w.buf = w.buf[i+1:]
	}
	return n, err
}

func (w *drainWriter) Close() error { return w.dst.Close() }
