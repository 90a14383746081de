package geo

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	helensburghCentral = Place{Name: "Helensburgh Central Station", Lat: 56.00416, Lon: -4.73253, Kind: KindStation}
	glasgowAirport     = Place{Name: "Glasgow Airport", Lat: 55.8719, Lon: -4.43306, Kind: KindAirport, IATA: "GLA"}
)

// osrmServer replays one fixture and checks the request is an OSRM route
// call for the reference trip.
func osrmServer(t *testing.T, f fixture) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if want := "/route/v1/driving/-4.732530,56.004160;-4.433060,55.871900"; r.URL.Path != want {
			t.Errorf("path %q, want %q", r.URL.Path, want)
		}
		if got := r.URL.Query().Get("overview"); got != "false" {
			t.Errorf("overview=%q, want false", got)
		}
		if ua := r.Header.Get("User-Agent"); ua != DefaultUserAgent {
			t.Errorf("User-Agent %q", ua)
		}
		f.serve(t, w)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestOSRMRoute(t *testing.T) {
	ts := osrmServer(t, fixture{status: 200, file: "osrm/ok.json"})
	got, err := NewOSRM(ts.URL).Route(context.Background(), helensburghCentral, glasgowAirport)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Route{DistanceMeters: 35236.9, DurationSeconds: 1978.4}, got); diff != "" {
		t.Errorf("Route (-want +got):\n%s", diff)
	}
}

func TestOSRMFailures(t *testing.T) {
	tests := []struct {
		name     string
		f        fixture
		want     error
		wantCode string
	}{
		{"NoRoute", fixture{status: 400, file: "osrm/noroute.json"}, ErrNoMatch, "NoRoute"},
		{"NoSegment", fixture{status: 400, file: "osrm/nosegment.json"}, ErrNoMatch, "NoSegment"},
		{"InvalidQuery", fixture{status: 400, file: "osrm/invalidquery.json"}, ErrUnavailable, "InvalidQuery"},
		{"TooBig", fixture{status: 400, file: "osrm/toobig.json"}, ErrUnavailable, "TooBig"},
		{"Ok without routes", fixture{status: 200, file: "osrm/ok_no_routes.json"}, ErrUnavailable, "Ok"},
		{"502 HTML", fixture{status: 502, file: "nominatim/overloaded.html", ctype: "text/html"}, ErrUnavailable, ""},
		{"200 HTML", fixture{status: 200, file: "nominatim/overloaded.html", ctype: "text/html"}, ErrUnavailable, ""},
		{"200 empty body", fixture{status: 200}, ErrUnavailable, ""},
		{"500 Ok body", fixture{status: 500, file: "osrm/ok.json"}, ErrUnavailable, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := osrmServer(t, tt.f)
			_, err := NewOSRM(ts.URL).Route(context.Background(), helensburghCentral, glasgowAirport)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Route = %v, want %v", err, tt.want)
			}
			var be *BackendError
			if !errors.As(err, &be) || be.Code != tt.wantCode || be.StatusCode != tt.f.status {
				t.Errorf("BackendError %+v, want code %q status %d", be, tt.wantCode, tt.f.status)
			}
		})
	}
}

func TestOSRMTimeout(t *testing.T) {
	ts := blockingServer(t)
	_, err := NewOSRM(ts.URL, WithTimeout(50*time.Millisecond)).Route(context.Background(), helensburghCentral, glasgowAirport)
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Route against a hung server = %v, want ErrUnavailable wrapping DeadlineExceeded", err)
	}
}

func TestOSRMUnreachable(t *testing.T) {
	_, err := NewOSRM(closedServerURL(t)).Route(context.Background(), helensburghCentral, glasgowAirport)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Route against a closed port = %v, want ErrUnavailable", err)
	}
}

func TestOSRMInvalidCoordinatesNotSent(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request sent for invalid coordinates: %s", r.URL)
	}))
	defer ts.Close()
	bad := Place{Lat: 91, Lon: 0}
	if _, err := NewOSRM(ts.URL).Route(context.Background(), bad, glasgowAirport); !errors.Is(err, ErrNoMatch) {
		t.Errorf("Route from lat 91 = %v, want ErrNoMatch", err)
	}
}
