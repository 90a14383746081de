package client

//go:generate go run ../tools/cmd/gen-client -out tools.gen.go
