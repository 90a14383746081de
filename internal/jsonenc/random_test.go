package jsonenc_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// source is the randomness a filler draws: a fuzzer's bytes (zeros once
// they run out) or a PRNG's.
type source interface{ next() uint64 }

type bytesSource struct{ b []byte }

func (s *bytesSource) next() uint64 {
	var x [8]byte
	n := copy(x[:], s.b)
	s.b = s.b[n:]
	return binary.LittleEndian.Uint64(x[:])
}

type randSource struct{ r *rand.Rand }

func (s randSource) next() uint64 { return s.r.Uint64() }

// pieces of strings: every kind of escape encoding/json writes, invalid
// UTF-8, the line separators it always escapes, HTML characters it leaves
// alone here.
var pieces = []string{
	"", "a", "Glasgow Airport", `"`, `\`, "/", "\b", "\f", "\n", "\r", "\t", "\x00", "\x01", "\x1f", "\x7f",
	"<", ">", "&", "\u2028", "\u2029", "\u2027", "\u202a", "é", "€", "😀", "\ufffd",
	"\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf",
	"https://e.test/book?a=1&b=<2>", "  ", "{}[]:,",
}

// filler fills a value of any generated type with random contents: nil
// and empty slices, nil pointers, floats around encoding/json's format
// boundaries, NaN and ±Inf now and then (which must fail alike).
type filler struct {
	src   source
	depth int
}

func (f *filler) n(k uint64) uint64 { return f.src.next() % k }

func (f *filler) str() string {
	var s string
	for range f.n(5) {
		s += pieces[f.n(uint64(len(pieces)))]
	}
	return s
}

func (f *filler) float() float64 {
	fs := interestingFloats()
	switch f.n(20) {
	case 0:
		return math.Float64frombits(f.src.next())
	case 1:
		return []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[f.n(3)]
	case 2, 3, 4:
		return float64(int64(f.src.next()%200000)-100000) / 100
	}
	return fs[f.n(uint64(len(fs)))]
}

func (f *filler) fill(v reflect.Value) {
	f.depth++
	defer func() { f.depth-- }()
	switch v.Kind() {
	case reflect.String:
		v.SetString(f.str())
	case reflect.Bool:
		v.SetBool(f.n(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		switch f.n(4) {
		case 0:
			v.SetInt(0)
		case 1:
			v.SetInt([]int64{math.MinInt64, math.MaxInt64, -1, 1}[f.n(4)])
		default:
			v.SetInt(int64(f.src.next()))
		}
	case reflect.Float64, reflect.Float32:
		v.SetFloat(f.float())
	case reflect.Pointer:
		if f.n(3) == 0 || f.depth > 6 {
			return // nil
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Slice:
		switch f.n(4) {
		case 0: // nil
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			n := int(f.n(4))
			if f.depth > 6 {
				n = 0
			}
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := range n {
				f.fill(s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Map:
		if f.n(3) == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for range f.n(4) {
			e := reflect.New(v.Type().Elem()).Elem()
			f.fill(e)
			m.SetMapIndex(reflect.ValueOf(f.str()).Convert(v.Type().Key()), e)
		}
		v.Set(m)
	case reflect.Interface:
		switch f.n(5) {
		case 0: // nil
		case 1:
			v.Set(reflect.ValueOf(f.str()))
		case 2:
			v.Set(reflect.ValueOf(f.float()))
		case 3:
			v.Set(reflect.ValueOf([]any{f.str(), f.n(2) == 1, nil}))
		default:
			v.Set(reflect.ValueOf(map[string]any{f.str(): f.str(), "n": f.float()}))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i))
			}
		}
	default:
		panic("filler: no rule for " + v.Type().String())
	}
}

// checkRandom fills every root type from src and compares its encoding,
// as a value and through a pointer, with encoding/json's.
func checkRandom(t testing.TB, src source) {
	f := &filler{src: src}
	for _, rt := range roots() {
		p := reflect.New(rt)
		f.fill(p.Elem())
		compare(t, "random", p.Elem().Interface())
		compare(t, "random (pointer)", p.Interface())
	}
}

func TestRandomValuesMatchEncodingJSON(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	src := randSource{rand.New(rand.NewPCG(7, 11))}
	for range n {
		checkRandom(t, src)
	}
}

// FuzzAppendJSON draws every generated type's contents from the fuzzer's
// bytes: go test -fuzz FuzzAppendJSON ./internal/jsonenc/
func FuzzAppendJSON(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18"))
	r := rand.New(rand.NewPCG(3, 5))
	for range 8 {
		b := make([]byte, 512)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRandom(t, &bytesSource{b: data})
	})
}
