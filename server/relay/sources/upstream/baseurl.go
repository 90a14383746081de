package upstream

import (
	"fmt"
	"net/url"
	"strings"
)

// ParseBaseURL reads an adapter's API root: raw, or def when raw is "".
// It must be an absolute http(s) URL without a query; a trailing slash is
// dropped. variable names the setting in the error (UBER_API_URL), which
// never repeats the value: an operator may have pasted a credential into
// it.
func ParseBaseURL(raw, def, variable string) (*url.URL, error) {
	if raw == "" {
		raw = def
	}
	u, err := url.Parse(strings.TrimSuffix(raw, "/"))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("%s must be an absolute http(s) URL without a query or user info", variable)
	}
	return u, nil
}
