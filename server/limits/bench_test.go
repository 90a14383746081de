package limits

import (
	"strconv"
	"testing"
)

// BenchmarkAllow measures one decision on each implementation, on one hot
// key and spread over many keys.
func BenchmarkAllow(b *testing.B) {
	impls := map[string]func(b *testing.B) Limiter{
		"local": func(b *testing.B) Limiter { return NewLocal(nil) },
		"redis": func(b *testing.B) Limiter { c := newRedisClient(b); return NewRedis(c, testPrefix(b, c)) },
	}
	for _, name := range []string{"local", "redis"} {
		b.Run(name, func(b *testing.B) {
			lim := impls[name](b)
			l := PerSecond(1_000_000)
			b.Run("hot-key", func(b *testing.B) {
				for b.Loop() {
					if _, err := lim.Allow(bg, "actor:alice", l); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("1000-keys-parallel", func(b *testing.B) {
				b.RunParallel(func(pb *testing.PB) {
					i := 0
					for pb.Next() {
						i++
						if _, err := lim.Allow(bg, "actor:"+strconv.Itoa(i%1000), l); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		})
	}
}
