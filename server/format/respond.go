package format

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
	MediaArrow = "application/vnd.apache.arrow.stream"
)

// Answer metadata as HTTP fields. Ossie-Cache and Age are headers (known
// before the first row). Ossie-Truncated, Ossie-Row-Count and Ossie-Total
// are known after the last row: headers when the whole answer fit in the
// first output buffer (outBufferSize), else HTTP trailers (declared in the
// Trailer header, sent after the chunked body).
const (
	HdrCache     = "Ossie-Cache"
	HdrTruncated = "Ossie-Truncated"
	HdrRowCount  = "Ossie-Row-Count"
	HdrTotal     = "Ossie-Total"
)

// outBufferSize is how much of an answer is held before the first bytes
// go out: an error within it still becomes a problem document.
const outBufferSize = 64 << 10

// Negotiate picks the answer format from Accept: the first listed media
// range that names CSV or Arrow wins; anything else (none, */*,
// application/json, unknown types) is JSON.
func Negotiate(accept string) string {
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case mediaCSV, MediaArrow:
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
	Started bool
	final   bool
}

// outBuffers recycles output buffers: a fresh 64 KiB per request would be
// most of a small answer's garbage.
var outBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, outBufferSize) }}

func newHTTPOut(w http.ResponseWriter, mediaType string, h *AnswerHead) *httpOut {
	o := &httpOut{w: w}
	o.buf = outBuffers.Get().(*bufio.Writer)
	o.buf.Reset(o)
	hd := w.Header()
	hd.Set("Content-Type", mediaType)
	hd.Set("X-Content-Type-Options", "nosniff")
	if h.Cached {
		hd.Set(HdrCache, "hit")
		hd.Set("Age", ageSeconds(h.Age))
	} else {
		hd.Set(HdrCache, "miss")
	}
	return o
}

// Write is the buffer's spill into the response: from here on the answer
// is committed, so its end-of-answer fields become trailers (unless finish
// is sending everything at once).
func (o *httpOut) Write(p []byte) (int, error) {
	if !o.Started {
		o.Started = true
		if !o.final {
			o.w.Header().Set("Trailer", HdrTruncated+", "+HdrRowCount+", "+HdrTotal)
		}
		o.w.WriteHeader(http.StatusOK)
	}
	return o.w.Write(p)
}

// finish sends what is buffered with the end-of-answer fields: as headers
// when nothing went out yet, else as trailers.
func (o *httpOut) finish(t *AnswerTail) error {
	if !o.Started {
		o.final = true
		setTail(o.w.Header(), t)
		if o.buf.Buffered() == 0 {
			o.Started = true
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

func setTail(hd http.Header, t *AnswerTail) {
	hd.Set(HdrTruncated, strconv.FormatBool(t.Truncated))
	hd.Set(HdrRowCount, strconv.Itoa(t.RowCount))
	if t.Total != nil {
		hd.Set(HdrTotal, strconv.FormatInt(*t.Total, 10))
	}
}

// Release returns the buffer to the pool; o must not be used after.
func (o *httpOut) Release() {
	if o != nil && o.buf != nil {
		o.buf.Reset(nil)
		outBuffers.Put(o.buf)
		o.buf = nil
	}
}
