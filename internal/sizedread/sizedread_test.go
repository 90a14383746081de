package sizedread_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tridenttaxis/trident-mcp/internal/sizedread"
)

// TestReadAllAsIOReadAll: whatever length a body states, ReadAll reads
// what io.ReadAll reads, with its error, through readers that return data
// with io.EOF, a byte at a time, half at a time, or fail part way.
func TestReadAllAsIOReadAll(t *testing.T) {
	body := strings.Repeat(`{"jsonrpc":"2.0"}`, 40)
	boom := errors.New("boom")
	wraps := map[string]func(io.Reader) io.Reader{
		"plain":    func(r io.Reader) io.Reader { return r },
		"data+EOF": iotest.DataErrReader,
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"fails": func(r io.Reader) io.Reader {
			return io.MultiReader(io.LimitReader(r, 100), iotest.ErrReader(boom))
		},
	}
	for name, wrap := range wraps {
		for _, stated := range []int64{-1, 0, 1, 100, int64(len(body)) - 1, int64(len(body)), int64(len(body)) + 1, 4 * int64(len(body))} {
			want, wantErr := io.ReadAll(wrap(strings.NewReader(body)))
			got, err := sizedread.ReadAll(wrap(strings.NewReader(body)), stated)
			if !bytes.Equal(got, want) || !errors.Is(err, wantErr) && err != wantErr {
				t.Errorf("%s, stated %d: %d bytes, %v; io.ReadAll: %d bytes, %v", name, stated, len(got), err, len(want), wantErr)
			}
		}
	}
}
