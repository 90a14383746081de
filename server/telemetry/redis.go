package telemetry

import (
	"context"
	"errors"
	"net"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
)

// RedisHook makes each Redis command (and pipeline) a client span named
// by the command ("redis EVALSHA"), for client.AddHook. The span holds the
// command's name only: never its keys or arguments (keys name callers and
// providers). With tracing off the hook calls straight through.
//
// Hand-written rather than go-redis' redisotel: that records the whole
// command line (db.statement), arguments included.
func RedisHook() redis.Hook { return redisHook{} }

type redisHook struct{}

func (redisHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (redisHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !Enabled() {
			return next(ctx, cmd)
		}
		ctx, span := StartClient(ctx, "redis "+cmd.Name())
		defer span.End()
		span.SetAttributes(attribute.String("db.system.name", "redis"), attribute.String("db.operation.name", cmd.Name()))
		err := next(ctx, cmd)
		if err != nil && !errors.Is(err, redis.Nil) {
			Fail(span, "redis error")
		}
		return err
	}
}

func (redisHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !Enabled() {
			return next(ctx, cmds)
		}
		ctx, span := StartClient(ctx, "redis pipeline")
		defer span.End()
		span.SetAttributes(attribute.String("db.system.name", "redis"), attribute.Int("db.operation.batch.size", len(cmds)))
		err := next(ctx, cmds)
		if err != nil && !errors.Is(err, redis.Nil) {
			Fail(span, "redis error")
		}
		return err
	}
}
