package paywall

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// discardWriter is a ResponseWriter that drops the body and flushes.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}

// meteredMiB is 1 MiB of an LLM-style answer cut in the 32 KiB writes
// reverse_proxy makes: server-sent events of about 150 bytes each, the
// last with the usage, or one JSON body.
func meteredMiB(sse bool) [][]byte {
	var b strings.Builder
	if sse {
		for i := 0; b.Len() < 1<<20-200; i++ {
			fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token %d\"}}],\"usage\":null}\n\n", i)
		}
		b.WriteString("data: {\"usage\":{\"total_tokens\":4096}}\n\ndata: [DONE]\n\n")
	} else {
		b.WriteString(`{"choices":[{"message":{"content":"`)
		b.WriteString(strings.Repeat("lorem ipsum ", (1<<20-100)/12))
		b.WriteString(`"}}],"usage":{"total_tokens":4096}}`)
	}
	s := []byte(b.String())
	var out [][]byte
	for len(s) > 0 {
		n := min(32<<10, len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// BenchmarkMeterPerMiB: the metering cost of 1 MiB of a streamed answer
// (settle after: the answer goes through the meter writer, read by the
// meter as it goes) against plain proxying (the same writes through
// Caddy's ResponseWriterWrapper), in the same run.
func BenchmarkMeterPerMiB(b *testing.B) {
	for _, sse := range []bool{true, false} {
		kind := "json"
		if sse {
			kind = "sse"
		}
		chunks := meteredMiB(sse)
		size := 0
		for _, c := range chunks {
			size += len(c)
		}
		b.Run(kind+"/plain", func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				w := &caddyhttp.ResponseWriterWrapper{ResponseWriter: &discardWriter{h: http.Header{}}}
				w.WriteHeader(http.StatusOK)
				for _, c := range chunks {
					_, _ = w.Write(c)
					if sse {
						_ = http.NewResponseController(w).Flush()
					}
				}
			}
		})
		b.Run(kind+"/metered", func(b *testing.B) {
			m := &meterer{logger: zap.NewNop(), meter: &Meter{Kind: "json", Path: "usage.total_tokens", UnitPrice: "2"}}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				hdr := http.Header{}
				if sse {
					hdr.Set("Content-Type", "text/event-stream")
				}
				mw := &meterWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: &discardWriter{h: hdr}},
					m: m, after: true, max: DefaultMeterMaxBytes, state: meterStreaming, sse: sse,
					meter: newMeterReader(m.meter.Path, DefaultMeterMaxBytes, sse)}
				for _, c := range chunks {
					_, _ = mw.Write(c)
					if sse {
						mw.Flush()
					}
				}
				if v, ok := mw.meter.result(); !ok || v.RatString() != "4096" {
					b.Fatalf("reading %v, %v", v, ok)
				}
			}
		})
	}
}

// BenchmarkMeterProxyPerMiB: 1 MiB of server-sent events proxied over
// loopback TCP (an upstream, a reverse proxy, a client reading it all),
// plainly and with the proxy's writer metering it (settle after), in the
// same run: the metering cost against the cost of proxying itself.
func BenchmarkMeterProxyPerMiB(b *testing.B) {
	chunks := meteredMiB(true)
	size := 0
	for _, c := range chunks {
		size += len(c)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			_, _ = w.Write(c)
		}
	}))
	defer up.Close()
	target, _ := url.Parse(up.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	m := &meterer{logger: zap.NewNop(), meter: &Meter{Kind: "json", Path: "usage.total_tokens", UnitPrice: "2"}}
	for _, metered := range []bool{false, true} {
		name := "plain"
		if metered {
			name = "metered"
		}
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !metered {
				rp.ServeHTTP(w, r)
				return
			}
			mw := &meterWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w},
				m: m, after: true, max: DefaultMeterMaxBytes, state: meterStreaming, sse: true,
				meter: newMeterReader(m.meter.Path, DefaultMeterMaxBytes, true)}
			rp.ServeHTTP(mw, r)
			if v, ok := mw.meter.result(); !ok || v.RatString() != "4096" {
				panic(fmt.Sprint("reading ", v, ok))
			}
		}))
		b.Run("sse/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				resp, err := http.Get(front.URL)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if n != int64(size) {
					b.Fatalf("read %d of %d bytes", n, size)
				}
			}
		})
		front.Close()
	}
}
