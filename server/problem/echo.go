package problem

// maxEchoedName bounds a model name quoted back in a problem detail, so a
// request cannot make the answer (and the log line) as large as its URL.
const maxEchoedName = 128

// EchoName is name for a problem detail or instance: at most
// maxEchoedName bytes of it, cut at a rune boundary, with "…" when cut.
func EchoName(name string) string {
	if len(name) <= maxEchoedName {
		return name
	}
	cut := maxEchoedName
	for cut > 0 && !isRuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
