package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// BenchmarkDecoder reports SSE parsing throughput (MB/s) on a stream shaped
// like an MCP streamed tool call: progress notifications, then a larger
// final response split over two data lines.
func BenchmarkDecoder(b *testing.B) {
	var buf bytes.Buffer
	for i := range 200 {
		buf.WriteString("id: ")
		buf.WriteString(strings.Repeat("9", i%5+1))
		buf.WriteString("\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":0.5,\"message\":\"Geocoding pickup...\"}}\n\n")
		buf.WriteString(": keep-alive\r\n")
		buf.WriteString("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"")
		buf.WriteString(strings.Repeat("x", 1500))
		buf.WriteString("\"}],\ndata: \"structuredContent\":{\"fareGBP\":62.4}}}\r\n\r\n")
	}
	stream := buf.Bytes()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewDecoder(bytes.NewReader(stream), 0)
		n := 0
		for {
			_, err := d.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
			n++
		}
		if n != 400 {
			b.Fatalf("decoded %d events, want 400", n)
		}
	}
}
