import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

// One Go module, one folder per service. Each service keeps its go-kit gRPC client package in its own folder;
// the storefront imports both (under aliases: both packages are named `rpc`) and calls them through an
// interface its own service type returns.
const MOD = 'example.com/mall';

const proto = (svc: string, methods: string[]): string => `syntax = "proto3";
package pb;

service ${svc} {
${methods.map((m) => `  rpc ${m}(Req) returns (Reply);`).join('\n')}
}

message Req { int64 id = 1; }
message Reply { string name = 1; }
`;

/** A go-kit client whose endpoints are built by a project helper around `grpctransport.NewClient`. */
const kitClient = (iface: string, methods: { name: string; svc: string; rpc: string }[]): string => `package rpc

import (
	"context"

	"github.com/go-kit/kit/endpoint"
	"github.com/go-kit/kit/sd"
	grpctransport "github.com/go-kit/kit/transport/grpc"
	"google.golang.org/grpc"

	"${MOD}/kitutil"
	"${MOD}/${iface}"
)

var _ ${iface}.Service = (*Client)(nil)

type Client struct {
${methods.map((m) => `	${m.name.toLowerCase()} endpoint.Endpoint`).join('\n')}
}
${methods
  .map(
    (m) => `
func (c *Client) ${m.name}(ctx context.Context, id int64) (string, error) {
	rsp, err := c.${m.name.toLowerCase()}(ctx, id)
	if err != nil {
		return "", err
	}
	return rsp.(string), nil
}
`,
  )
  .join('')}
func NewClient(instancer sd.Instancer) *Client {
	c := &Client{}
${methods
  .map(
    (
      m,
    ) => `	c.${m.name.toLowerCase()} = kitutil.ClientEndpoint(instancer, func(conn *grpc.ClientConn) endpoint.Endpoint {
		return grpctransport.NewClient(
			conn,
			"pb.${m.svc}",
			"${m.rpc}",
			encode,
			decode,
			struct{}{},
		).Endpoint()
	})
`,
  )
  .join('')}	return c
}
`;

const serverMain = (svc: string, iface: string): string => `package main

import (
	"net"

	"google.golang.org/grpc"

	"${MOD}/${iface}/api/pb"
	"${MOD}/${iface}/api/rpc"
)

func main() {
	l, _ := net.Listen("tcp", ":8082")
	s := grpc.NewServer()
	pb.Register${svc}Server(s, rpc.NewServer())
	s.Serve(l)
}
`;

/** The service's own gRPC server, in the client's package, with methods of the client's names. */
const kitServer = (methods: string[]): string => `package rpc

import (
	"context"

	"${MOD}/items"
)

type grpcServer struct{ svc items.Service }

${methods
  .map(
    (m) => `func (s *grpcServer) ${m}(ctx context.Context, id int64) (string, error) {
	return s.svc.${m}(ctx, id)
}
`,
  )
  .join('\n')}`;

const catalog = {
  'api/pb/catalog.proto': proto('ItemSvc', ['List', 'Fetch']),
  'cmd/catalog/main.go': serverMain('ItemSvc', 'items'),
  'api/rpc/client.go': kitClient('items', [
    { name: 'List', svc: 'ItemSvc', rpc: 'List' },
    { name: 'Fetch', svc: 'ItemSvc', rpc: 'Fetch' },
  ]),
  'api/rpc/server.go': kitServer(['List', 'Fetch']),
  'items/service.go': `package items

import "context"

type Service interface {
	List(ctx context.Context, id int64) (string, error)
	Fetch(ctx context.Context, id int64) (string, error)
}
`,
};

const basket = {
  'api/pb/basket.proto': proto('BasketSvc', ['List', 'Drop']),
  'cmd/basket/main.go': serverMain('BasketSvc', 'baskets'),
  // `Drop` names the catalog's service (a copy-paste slip), and nothing calls it: no request is ever made.
  'api/rpc/client.go': kitClient('baskets', [
    { name: 'List', svc: 'BasketSvc', rpc: 'List' },
    { name: 'Drop', svc: 'ItemSvc', rpc: 'Fetch' },
  ]),
  'baskets/service.go': `package baskets

import "context"

type Service interface {
	List(ctx context.Context, id int64) (string, error)
	Drop(ctx context.Context, id int64) (string, error)
}
`,
};

const storefront = {
  'main.go': `package main

import (
	"github.com/go-kit/kit/sd"

	basketrpc "${MOD}/basket/api/rpc"
	"${MOD}/basket/baskets"
	itemrpc "${MOD}/catalog/api/rpc"
	"${MOD}/catalog/items"
	"${MOD}/storefront/app"
	"${MOD}/storefront/web"
)

func main() {
	var (
		itemsvc   items.Service
		basketsvc baskets.Service
	)
	itemsvc = itemrpc.NewClient(sd.FixedInstancer([]string{"catalog:8082"}))
	basketsvc = basketrpc.NewClient(sd.FixedInstancer([]string{"basket:8082"}))
	web.Serve(app.New(itemsvc, basketsvc))
}
`,
  'app/app.go': `package app

import (
	"${MOD}/basket/baskets"
	"${MOD}/catalog/items"
)

type App interface {
	Items() items.Service
	Baskets() baskets.Service
}

type app struct {
	items   items.Service
	baskets baskets.Service
}

func (a *app) Items() items.Service     { return a.items }
func (a *app) Baskets() baskets.Service { return a.baskets }

func New(i items.Service, b baskets.Service) App { return &app{i, b} }
`,
  'web/handler.go': `package web

import (
	"context"

	"${MOD}/storefront/app"
)

func Page(ctx context.Context, a app.App, id int64) (string, error) {
	name, err := a.Items().List(ctx, id)
	if err != nil {
		return "", err
	}
	return a.Baskets().List(ctx, id)
}
`,
};

describe('Go: go-kit gRPC clients named by strings (issue 20)', () => {
  it('grpctransport.NewClient(conn, "pb.ItemSvc", "List", …) calls the server that registers the service', async () => {
    const r = await reportOf({
      catalog,
      reports: {
        'export.go': `package reports

import (
	"context"

	grpctransport "github.com/go-kit/kit/transport/grpc"
	"google.golang.org/grpc"
)

func Export(ctx context.Context, conn *grpc.ClientConn) error {
	list := grpctransport.NewClient(conn, "pb.ItemSvc", "List", encode, decode, struct{}{}).Endpoint()
	_, err := list(ctx, int64(1))
	return err
}
`,
      },
    });
    expect(rows(r)).toEqual([
      'reports export.go:11 | gRPC pb.ItemSvc/List | catalog cmd/catalog/main.go:15 gRPC pb.ItemSvc/List (grpc-go, rpc at catalog api/pb/catalog.proto:5)',
    ]);
  });

  it("a client package in the callee's folder, called through an interface, is the importer's call", async () => {
    const r = await reportOf({ storefront, catalog, basket });
    expect(rows(r)).toEqual([
      'storefront web/handler.go:10 | gRPC pb.ItemSvc/List | catalog cmd/catalog/main.go:15 gRPC pb.ItemSvc/List (grpc-go, rpc at catalog api/pb/catalog.proto:5)',
      'storefront web/handler.go:14 | gRPC pb.BasketSvc/List | basket cmd/basket/main.go:15 gRPC pb.BasketSvc/List (grpc-go, rpc at basket api/pb/basket.proto:5)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('without an importer the client calls stay in their folder', async () => {
    const r = await reportOf({ catalog, basket });
    // basket's own client names the catalog's service: with no importer, the call is basket's.
    expect(rows(r)).toEqual([
      'basket api/rpc/client.go:31 | gRPC pb.ItemSvc/Fetch | catalog cmd/catalog/main.go:15 gRPC pb.ItemSvc/Fetch (grpc-go, rpc at catalog api/pb/catalog.proto:6)',
    ]);
  });
});
