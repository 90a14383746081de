package conformance

import (
	"encoding/json"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Streamable HTTP transport", Label("transport"), func() {
	It("answers a stateless tools/call: no initialize, no session header", func() {
		ex, err := client().Post(suiteCtx, sample("get_service_info.success").Request, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(ex.MediaType).To(BeElementOf("application/json", "text/event-stream"), ex.String())
		expectToolSuccess("get_service_info", ex, 1)
	})

	It("serves an initialized session: initialize, notifications/initialized, then calls", func() {
		c := client()
		ex, err := c.Call(suiteCtx, 1, "initialize", map[string]any{
			"protocolVersion": ProtocolVersion,
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]any{"name": "trident-conformance", "version": "1"},
		}, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(ex.Status).To(Equal(http.StatusOK), ex.String())
		m := expectResponse(ex, 1)
		Expect(m.Error).To(BeNil(), ex.String())
		var init struct {
			ProtocolVersion string `json:"protocolVersion"`
			Capabilities    struct {
				Tools json.RawMessage `json:"tools"`
			} `json:"capabilities"`
			ServerInfo struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"serverInfo"`
		}
		Expect(json.Unmarshal(m.Result, &init)).To(Succeed(), ex.String())
		Expect(init.ProtocolVersion).To(Equal(con.Manifest.Server.ProtocolVersion), ex.String())
		Expect(init.ServerInfo.Name).To(Equal(con.Manifest.Server.Name), ex.String())
		Expect(init.ServerInfo.Version).To(Equal(con.Manifest.Server.Version), ex.String())
		Expect(init.Capabilities.Tools).NotTo(BeNil(), "the server must declare the tools capability\n%s", ex.String())
		c.SessionID = ex.Header.Get("Mcp-Session-Id")

		ex, err = c.Call(suiteCtx, nil, "notifications/initialized", map[string]any{}, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(ex.Status).To(Equal(http.StatusAccepted), "a notification is answered 202 Accepted\n%s", ex.String())

		ex, err = c.CallTool(suiteCtx, 2, "get_service_info", map[string]any{}, nil)
		Expect(err).NotTo(HaveOccurred())
		expectToolSuccess("get_service_info", ex, 2)
		ex, err = c.Call(suiteCtx, 3, "tools/list", map[string]any{}, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(expectResponse(ex, 3).Error).To(BeNil(), ex.String())
	})

	It("answers a notification with 202 Accepted and no body", func() {
		ex, err := client().Call(suiteCtx, nil, "notifications/initialized", map[string]any{}, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(ex.Status).To(Equal(http.StatusAccepted), ex.String())
		Expect(ex.Body).To(BeEmpty(), ex.String())
	})

	It("accepts MCP-Protocol-Version: "+ProtocolVersion, func() {
		ex, err := client().Post(suiteCtx, sample("get_service_info.success").Request, Header{"MCP-Protocol-Version": ProtocolVersion})
		Expect(err).NotTo(HaveOccurred())
		expectToolSuccess("get_service_info", ex, 1)
	})

	It("accepts a request without MCP-Protocol-Version (the spec says assume 2025-03-26)", func() {
		ex, err := client().Post(suiteCtx, sample("get_service_info.success").Request, Header{"MCP-Protocol-Version": ""})
		Expect(err).NotTo(HaveOccurred())
		expectToolSuccess("get_service_info", ex, 1)
	})

	DescribeTable("echoes the request id exactly", func(id any) {
		ex, err := client().CallTool(suiteCtx, id, "get_service_info", map[string]any{}, nil)
		Expect(err).NotTo(HaveOccurred())
		expectToolSuccess("get_service_info", ex, id)
	},
		Entry("a string id", "req-7f3a"),
		Entry("zero", 0),
		Entry("a large integer", 9007199254740991),
	)
})
