package conformance

import (
	"encoding/json"
	"mime"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Every sample pair in contracts/trident/samples is replayed and the reply compared
// with the expected one, field by field.
var _ = Describe("contracts/trident/samples", Label("samples"), func() {
	var entries []TableEntry
	for _, s := range con.Samples {
		entries = append(entries, Entry(s.Name+".json", s))
	}
	DescribeTable("replays the request and gets the documented response", func(s sampleT) {
		if s.Mode == string(ModeOAuth) && serverMode != ModeOAuth {
			Skip("this sample applies only in OAuth mode; the server under test is public")
		}
		c := client()
		if s.HTTP.Status == 401 {
			c = anonymous()
		}
		hdr := Header{}
		for k, v := range s.HTTP.RequestHeaders {
			hdr[k] = v
		}
		ex, err := c.Post(suiteCtx, s.Request, hdr)
		Expect(err).NotTo(HaveOccurred())
		Expect(ex.Status).To(Equal(s.HTTP.Status), "HTTP status for samples/%s.json\n%s", s.Name, ex.String())

		for name, want := range s.HTTP.Headers {
			want = strings.ReplaceAll(want, "{{PUBLIC_BASE_URL}}", cfg.PublicBaseURL)
			got := ex.Header.Get(name)
			switch strings.ToLower(name) {
			case "content-type":
				wm, _, _ := mime.ParseMediaType(want)
				gm, _, _ := mime.ParseMediaType(got)
				Expect(gm).To(Equal(wm), "Content-Type\n%s", ex.String())
			case "www-authenticate":
				expectSameChallenge(want, got, ex)
			default:
				Expect(got).To(Equal(want), "header %s\n%s", name, ex.String())
			}
		}

		m, err := ex.Only()
		Expect(err).NotTo(HaveOccurred(), "samples/%s.json", s.Name)
		expectSampleReply(s, []byte(m.Raw), "the reply", ex)

		// A successful reply must also satisfy the output schema and say in
		// its text what its structuredContent says.
		if m.Error == nil {
			if r, err := DecodeResult(m.Result); err == nil && !r.IsError {
				checkStructured(toolOf(s.Request), r, ex)
			}
		}
	}, entries)
})

// expectSampleReply compares one JSON-RPC message with the sample's
// response, the booking base substituted and, without --strict-messages,
// the wordings relaxed to what every implementation must share. what names
// the message in the failure ("the reply", "the final frame").
func expectSampleReply(s sampleT, got []byte, what string, ex *Exchange) {
	GinkgoHelper()
	want := SubstituteBase(s.Response, sampleBookBase, cfg.BookingBaseURL)
	if !cfg.StrictMessages {
		want, got = relaxMessages(s, want, got)
	}
	diff := JSONDiff(want, got)
	Expect(diff).To(BeEmpty(), "%s differs from contracts/trident/samples/%s.json (-want +got):\n%s\n%s", what, s.Name, diff, ex.String())
}

// expectSameChallenge compares two WWW-Authenticate values as parsed
// challenges: the scheme case-insensitively, every auth-param exactly (in
// strict mode) or the ones a client acts on (otherwise).
func expectSameChallenge(want, got string, ex *Exchange) {
	GinkgoHelper()
	wc, err := ParseChallenges(want)
	Expect(err).NotTo(HaveOccurred(), "the contract's own WWW-Authenticate")
	gc, err := ParseChallenges(got)
	Expect(err).NotTo(HaveOccurred(), "WWW-Authenticate does not parse\n%s", ex.String())
	Expect(gc).To(HaveLen(len(wc)), "number of challenges\n%s", ex.String())
	for i := range wc {
		Expect(strings.EqualFold(gc[i].Scheme, wc[i].Scheme)).To(BeTrue(), "scheme %q, want %q", gc[i].Scheme, wc[i].Scheme)
		if cfg.StrictMessages {
			Expect(gc[i].Params).To(Equal(wc[i].Params), "WWW-Authenticate parameters\n%s", ex.String())
			continue
		}
		for _, k := range []string{"resource_metadata", "error"} {
			if v, ok := wc[i].Params[k]; ok {
				Expect(gc[i].Params).To(HaveKeyWithValue(k, v), "WWW-Authenticate %s\n%s", k, ex.String())
			}
		}
	}
}

// relaxMessages blanks the human-readable wording in both documents once the
// parts every implementation must share are checked: the -32602 field prefix,
// the tool name in -32601, and the catalogue signal of a tool error.
func relaxMessages(s sampleT, want, got []byte) ([]byte, []byte) {
	GinkgoHelper()
	var w, g map[string]any
	Expect(json.Unmarshal(want, &w)).To(Succeed())
	if json.Unmarshal(got, &g) != nil {
		return want, got
	}
	we, _ := w["error"].(map[string]any)
	ge, _ := g["error"].(map[string]any)
	if we != nil && ge != nil {
		wm, _ := we["message"].(string)
		gm, _ := ge["message"].(string)
		if strings.HasPrefix(wm, "Invalid params: ") {
			parts := strings.SplitN(wm, ": ", 3)
			Expect(gm).To(HavePrefix(parts[0]+": "+parts[1]+": "), "the -32602 message must name the field")
		}
		if strings.HasPrefix(wm, "Method not found") {
			name := toolOf(s.Request)
			Expect(gm).To(ContainSubstring(name), "the -32601 message must name the unknown tool")
		}
		we["message"], ge["message"] = "", ""
	}
	wr, _ := w["result"].(map[string]any)
	gr, _ := g["result"].(map[string]any)
	if wr != nil && gr != nil && wr["isError"] == true {
		if e, ok := con.ErrorEntry(s.ErrorCode); ok && e.Signal != "" {
			b, _ := json.Marshal(gr["content"])
			Expect(string(b)).To(ContainSubstring(e.Signal), "the tool error text must contain the signal of %s", s.ErrorCode)
		}
		wr["content"], gr["content"] = nil, nil
	}
	wb, _ := json.Marshal(w)
	gb, _ := json.Marshal(g)
	return wb, gb
}

// toolOf returns params.name of a tools/call request.
func toolOf(req json.RawMessage) string {
	var r struct {
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal(req, &r)
	return r.Params.Name
}
