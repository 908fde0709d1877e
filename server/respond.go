package server

import (
	"bufio"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Media types of query answers (Accept header; JSON is the default).
const (
	mediaJSON  = "application/json"
	mediaCSV   = "text/csv"
	mediaArrow = "application/vnd.apache.arrow.stream"
)

// Answer metadata as HTTP fields. Ossie-Cache and Age are headers (known
// before the first row). Ossie-Truncated, Ossie-Row-Count and Ossie-Total
// are known after the last row: headers when the whole answer fit in the
// first output buffer (outBufferSize), else HTTP trailers (declared in the
// Trailer header, sent after the chunked body).
const (
	hdrCache     = "Ossie-Cache"
	hdrTruncated = "Ossie-Truncated"
	hdrRowCount  = "Ossie-Row-Count"
	hdrTotal     = "Ossie-Total"
)

// outBufferSize is how much of an answer is held before the first bytes
// go out: an error within it still becomes a problem document.
const outBufferSize = 64 << 10

// negotiate picks the answer format from Accept: the first listed media
// range that names CSV or Arrow wins; anything else (none, */*,
// application/json, unknown types) is JSON.
func negotiate(accept string) string {
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case mediaCSV, mediaArrow:
			return mt
		case mediaJSON:
			return mediaJSON
		}
	}
	return mediaJSON
}

// httpOut buffers an answer in front of the ResponseWriter. Until the
// buffer first spills (started), nothing is sent: headers may still change
// and an error can still become a problem document.
type httpOut struct {
	w       http.ResponseWriter
	buf     *bufio.Writer
	started bool
	final   bool
}

// outBuffers recycles output buffers: a fresh 64 KiB per request would be
// most of a small answer's garbage.
var outBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, outBufferSize) }}

func newHTTPOut(w http.ResponseWriter, mediaType string, h *answerHead) *httpOut {
	o := &httpOut{w: w}
	o.buf = outBuffers.Get().(*bufio.Writer)
	o.buf.Reset(o)
	hd := w.Header()
	hd.Set("Content-Type", mediaType)
	hd.Set("X-Content-Type-Options", "nosniff")
	if h.Cached {
		hd.Set(hdrCache, "hit")
		hd.Set("Age", ageSeconds(h.Age))
	} else {
		hd.Set(hdrCache, "miss")
	}
	return o
}

// Write is the buffer's spill into the response: from here on the answer
// is committed, so its end-of-answer fields become trailers (unless finish
// is sending everything at once).
func (o *httpOut) Write(p []byte) (int, error) {
	if !o.started {
		o.started = true
		if !o.final {
			o.w.Header().Set("Trailer", hdrTruncated+", "+hdrRowCount+", "+hdrTotal)
		}
		o.w.WriteHeader(http.StatusOK)
	}
	return o.w.Write(p)
}

// finish sends what is buffered with the end-of-answer fields: as headers
// when nothing went out yet, else as trailers.
func (o *httpOut) finish(t *answerTail) error {
	if !o.started {
		o.final = true
		setTail(o.w.Header(), t)
		if o.buf.Buffered() == 0 {
			o.started = true
			o.w.WriteHeader(http.StatusOK)
			return nil
		}
		return o.buf.Flush()
	}
	if err := o.buf.Flush(); err != nil {
		return err
	}
	setTail(o.w.Header(), t)
	return nil
}

func setTail(hd http.Header, t *answerTail) {
	hd.Set(hdrTruncated, strconv.FormatBool(t.Truncated))
	hd.Set(hdrRowCount, strconv.Itoa(t.RowCount))
	if t.Total != nil {
		hd.Set(hdrTotal, strconv.FormatInt(*t.Total, 10))
	}
}

// release returns the buffer to the pool; o must not be used after.
func (o *httpOut) release() {
	if o != nil && o.buf != nil {
		o.buf.Reset(nil)
		outBuffers.Put(o.buf)
		o.buf = nil
	}
}
