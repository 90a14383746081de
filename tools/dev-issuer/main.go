// Command dev-issuer runs the project's development OAuth 2.1 authorization
// server (package internal/devissuer): a Supabase-Auth-compatible issuer at
// <base-url>/auth/v1 with DCR, PKCE S256, RFC 8707 resource binding,
// rotating refresh tokens and ES256 JWTs, for `make run-oauth`, the
// conformance suite and client tests on a machine with no Supabase.
//
// Every flag has an environment variable; the flag wins.
//
//	--addr                 DEV_ISSUER_ADDR               listen address (127.0.0.1:9999)
//	--base-url             DEV_ISSUER_BASE_URL           public base URL (http://<addr>); issuer is <base-url>/auth/v1
//	--db                   DEV_ISSUER_DB                 SQLite file keeping clients and keys across restarts
//	--users                DEV_ISSUER_USERS              JSON file: [{"id","email","password","role"?}]
//	--resource             DEV_ISSUER_RESOURCES          allowed RFC 8707 resource (repeat, or comma-separate in env)
//	--dev-auto-approve     DEV_ISSUER_DEV_AUTO_APPROVE   honour ?dev_auto_approve=<email> / X-Dev-Auto-Approve (DEV ONLY)
//	--auto-approve-user    DEV_ISSUER_AUTO_APPROVE_USER  approve every request as this user (DEV ONLY)
//	--dev-admin            DEV_ISSUER_DEV_ADMIN          enable POST /auth/v1/admin/rotate-key and
//	                                                     POST /auth/v1/admin/mint-token (DEV ONLY; see MintPath)
//	--dev-client-metadata-loopback DEV_ISSUER_DEV_CLIENT_METADATA_LOOPBACK  accept client ID metadata
//	                                                     documents served over http from loopback (DEV ONLY)
//	--refresh-reuse-interval DEV_ISSUER_REFRESH_REUSE_INTERVAL  Supabase-style reuse window (0 = off)
//	--access-token-ttl     DEV_ISSUER_ACCESS_TOKEN_TTL   access token lifetime (1h)
//	--service-client       DEV_ISSUER_SERVICE_CLIENTS    id:secret of a confidential client for the
//	                                                     client_credentials grant (repeat, or comma-separate in env)
//
// The DEV ONLY flags refuse to start unless --addr is a loopback address:
// each hands a code or a signed token to anyone who can reach the issuer.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "dev-issuer:", err)
		os.Exit(1)
	}
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// run serves until ctx ends. ready, if not nil, is called with the base
// URL once the listener is open (tests use it with --addr 127.0.0.1:0).
func run(ctx context.Context, args []string, getenv func(string) string, log io.Writer, ready func(baseURL string)) error {
	fs := flag.NewFlagSet("dev-issuer", flag.ContinueOnError)
	fs.SetOutput(log)
	envOr := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	envBool := func(name string) bool {
		b, _ := strconv.ParseBool(getenv(name))
		return b
	}
	envDur := func(name string) time.Duration {
		d, _ := time.ParseDuration(getenv(name))
		return d
	}
	addr := fs.String("addr", envOr("DEV_ISSUER_ADDR", "127.0.0.1:9999"), "listen address")
	baseURL := fs.String("base-url", getenv("DEV_ISSUER_BASE_URL"), "public base URL; the issuer is <base-url>/auth/v1 (default http://<addr>)")
	db := fs.String("db", getenv("DEV_ISSUER_DB"), "SQLite file keeping clients and signing keys across restarts (default: memory only)")
	usersFile := fs.String("users", getenv("DEV_ISSUER_USERS"), `JSON file of dev users: [{"id":"<uuid>","email":"...","password":"..."}] (default: `+devissuer.DefaultUser.Email+` / `+devissuer.DefaultUser.Password+`)`)
	var resources listFlag
	_ = resources.Set(getenv("DEV_ISSUER_RESOURCES"))
	fs.Var(&resources, "resource", "allowed RFC 8707 resource indicator; repeat for several (default: any http(s) URI)")
	autoApprove := fs.Bool("dev-auto-approve", envBool("DEV_ISSUER_DEV_AUTO_APPROVE"), "DEV ONLY: honour ?dev_auto_approve=<email> and the X-Dev-Auto-Approve header on /oauth/authorize")
	autoUser := fs.String("auto-approve-user", getenv("DEV_ISSUER_AUTO_APPROVE_USER"), "DEV ONLY: approve every authorize request as this dev user")
	devAdmin := fs.Bool("dev-admin", envBool("DEV_ISSUER_DEV_ADMIN"), "DEV ONLY: enable POST /auth/v1/admin/rotate-key and POST "+MintPath+" (signs any token, e.g. an expired one, for tests)")
	metadataLoopback := fs.Bool("dev-client-metadata-loopback", envBool("DEV_ISSUER_DEV_CLIENT_METADATA_LOOPBACK"), "DEV ONLY: accept client ID metadata documents (a client_id that is the URL of the client's metadata) served over http from a loopback host, as tests serve them")
	reuse := fs.Duration("refresh-reuse-interval", envDur("DEV_ISSUER_REFRESH_REUSE_INTERVAL"), "accept a rotated refresh token again within this window (Supabase uses 10s; 0 = every reuse revokes)")
	atTTL := fs.Duration("access-token-ttl", envDur("DEV_ISSUER_ACCESS_TOKEN_TTL"), "access token lifetime (default 1h)")
	var services listFlag
	_ = services.Set(getenv("DEV_ISSUER_SERVICE_CLIENTS"))
	fs.Var(&services, "service-client", "id:secret of a confidential client allowed the client_credentials grant (e.g. Relay's RELAY_TRIDENT_CLIENT_ID:RELAY_TRIDENT_CLIENT_SECRET); repeat for several")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}

	if shortcuts := devShortcuts(*autoApprove, *autoUser, *devAdmin, *metadataLoopback); shortcuts != "" {
		if err := requireLoopback(*addr); err != nil {
			return fmt.Errorf("%s: %w", shortcuts, err)
		}
	}

	var users []devissuer.User
	if *usersFile != "" {
		var err error
		if users, err = devissuer.LoadUsersFile(*usersFile); err != nil {
			return err
		}
	}
	var serviceClients []devissuer.ServiceClient
	for _, s := range services {
		id, secret, ok := strings.Cut(s, ":")
		if !ok || id == "" || secret == "" {
			return fmt.Errorf("--service-client %q: want id:secret", id)
		}
		serviceClients = append(serviceClients, devissuer.ServiceClient{ID: id, Secret: secret})
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	defer ln.Close()
	if *baseURL == "" {
		*baseURL = "http://" + loopbackAddr(ln.Addr().(*net.TCPAddr))
	}
	iss, err := devissuer.New(devissuer.Options{
		BaseURL:                   *baseURL,
		Users:                     users,
		Resources:                 resources,
		ServiceClients:            serviceClients,
		DBPath:                    *db,
		AutoApproveUser:           *autoUser,
		DevAutoApprove:            *autoApprove,
		DevAdmin:                  *devAdmin,
		DevClientMetadataLoopback: *metadataLoopback,
		RefreshReuseInterval:      *reuse,
		AccessTokenTTL:            *atTTL,
		Logf:                      func(f string, a ...any) { fmt.Fprintf(log, f+"\n", a...) },
	})
	if err != nil {
		return err
	}
	defer iss.Close()

	fmt.Fprintf(log, "dev-issuer: issuer %s (listening on %s)\n", iss.IssuerURL(), ln.Addr())
	fmt.Fprintf(log, "dev-issuer: metadata %s/.well-known/oauth-authorization-server\n", iss.IssuerURL())
	for _, u := range iss.Users() {
		fmt.Fprintf(log, "dev-issuer: dev user %s (sub %s)\n", u.Email, u.ID)
	}
	if *db == "" {
		fmt.Fprintln(log, "dev-issuer: no --db: clients and keys are lost on restart")
	}
	if shortcuts := devShortcuts(*autoApprove, *autoUser, *devAdmin, *metadataLoopback); shortcuts != "" {
		fmt.Fprintf(log, "dev-issuer: WARNING: dev-only shortcuts are on (%s); never expose this issuer\n", shortcuts)
	}

	handler := iss.Handler()
	if *devAdmin {
		handler = withMint(iss, resources, time.Now, handler)
		fmt.Fprintf(log, "dev-issuer: admin: POST %s%s, POST %s/admin/rotate-key\n", *baseURL, MintPath, iss.IssuerURL())
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready(*baseURL)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// devShortcuts names the DEV ONLY flags that are on, or returns "".
func devShortcuts(autoApprove bool, autoUser string, devAdmin, metadataLoopback bool) string {
	var on []string
	if autoApprove {
		on = append(on, "--dev-auto-approve")
	}
	if autoUser != "" {
		on = append(on, "--auto-approve-user")
	}
	if devAdmin {
		on = append(on, "--dev-admin")
	}
	if metadataLoopback {
		on = append(on, "--dev-client-metadata-loopback")
	}
	return strings.Join(on, ", ")
}

// requireLoopback refuses a listen address other machines can reach. The
// dev-only shortcuts hand an authorization code, or a signed token, to
// anyone who asks; a warning in a log is not enough to keep that off a
// network, so they only run on a loopback listener.
func requireLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("dev-only shortcuts listen on loopback only (127.0.0.1, [::1] or localhost), not --addr %q", addr)
}

// loopbackAddr turns a wildcard listen address into one a local client can
// reach, for the default base URL.
func loopbackAddr(a *net.TCPAddr) string {
	if a.IP == nil || a.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(a.Port))
	}
	return a.String()
}
