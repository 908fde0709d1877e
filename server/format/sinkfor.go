package format

import "net/http"

// SinkFor returns the sink that writes an answer to w as mediaType (a
// value of negotiate), and a function giving its output once the answer
// has begun (nil before).
func SinkFor(mediaType string, w http.ResponseWriter) (AnswerSink, func() *httpOut) {
	switch mediaType {
	case mediaCSV:
		c := &csvSink{w: w}
		return c, func() *httpOut { return c.out }
	case MediaArrow:
		a := &arrowSink{w: w}
		return a, func() *httpOut { return a.out }
	default:
		j := &jsonSink{w: w}
		return j, func() *httpOut { return j.out }
	}
}
