import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

// Go's standard net/rpc: a ledger registers two receivers (one by its type, built by a constructor; one under
// another name, on a server of its own) and serves them; a teller dials the ledger's address through a helper and calls methods by
// their "Type.Method" strings, literal or held in a local constant.
const ledger = {
  'go.mod': 'module ledger\n',
  'main.go': `package main

import (
	"net"
	"net/http"
	"net/rpc"
)

type Args struct{ Amount int }
type Reply struct{ OK bool }

type Ledger struct{}

func (l *Ledger) Post(args Args, reply *Reply) error { return nil }

// Not net/rpc's signature: never a served method.
func (l *Ledger) Close() error { return nil }

func (l *Ledger) audit(args Args, reply *Reply) error { return nil }

func NewLedger() *Ledger { return &Ledger{} }

type accounts struct{}

func (a accounts) Open(args Args, reply *Reply) error { return nil }

func main() {
	l := NewLedger()
	rpc.Register(l)
	srv := rpc.NewServer()
	srv.RegisterName("Accounts", &accounts{})
	// An HTTP handler of the same path answers HTTP, not net/rpc.
	http.HandleFunc("/Ledger.Close", func(w http.ResponseWriter, r *http.Request) {})
	lis, _ := net.Listen("tcp", ":4000")
	rpc.Accept(lis)
}
`,
};

const tellerMain = `package main

import (
	"net/rpc"
	"os"

	"teller/ops"
)

func dial(addr string) *rpc.Client {
	c, err := rpc.Dial("tcp", addr)
	if err != nil {
		panic(err)
	}
	return c
}

func main() {
	ops.Run(dial(os.Getenv("LEDGER_ADDR")))
}
`;

const tellerOps = `package ops

type Args struct{ Amount int }
type Reply struct{ OK bool }

type Client interface {
	Call(serviceMethod string, args any, reply any) error
}

func Run(client Client) {
	var reply Reply
	method := "Ledger.Post"
	client.Call(method, Args{Amount: 1}, &reply)
	client.Call("Accounts.Open", Args{}, &reply)
	client.Call("Ledger.Close", Args{}, &reply)
}
`;

const deploy = {
  'docker-compose.yml': `services:
  ledger:
    build: ./ledger
  teller:
    build: ./teller
    environment:
      LEDGER_ADDR: ledger:4000
`,
};

describe('Go net/rpc', () => {
  it('links each Call("Type.Method") to the receiver registered under that name, at the dialled host', async () => {
    const r = await reportOf({
      teller: { 'go.mod': 'module teller\n', 'main.go': tellerMain, 'ops/ops.go': tellerOps },
      ledger,
      deploy,
    });
    expect(rows(r).filter((x) => x.includes('RPC'))).toEqual([
      'teller ops/ops.go:13 | RPC ledger/Ledger.Post | ledger main.go:14 RPC /Ledger.Post (go-net/rpc)',
      'teller ops/ops.go:14 | RPC ledger/Accounts.Open | ledger main.go:25 RPC /Accounts.Open (go-net/rpc)',
    ]);
    // `Close` lacks net/rpc's signature and the HTTP handler of that path is no net/rpc method.
    expect(unresolved(r).filter((x) => x.includes('Close'))).toEqual([
      'teller ops/ops.go:15 RPC ledger/Ledger.Close — no matching route: `ledger` serves no RPC /Ledger.Close',
    ]);
  });

  it('links by the method alone when the address is only known at run time', async () => {
    const r = await reportOf({
      teller: { 'go.mod': 'module teller\n', 'main.go': tellerMain, 'ops/ops.go': tellerOps },
      ledger,
    });
    expect(rows(r).filter((x) => x.includes('RPC'))).toEqual([
      'teller ops/ops.go:13 | RPC /Ledger.Post | ledger main.go:14 RPC /Ledger.Post (go-net/rpc)',
      'teller ops/ops.go:14 | RPC /Accounts.Open | ledger main.go:25 RPC /Accounts.Open (go-net/rpc)',
    ]);
  });

  it('reads no call in a source that never imports net/rpc', async () => {
    const r = await reportOf({
      teller: {
        'go.mod': 'module teller\n',
        'main.go': tellerMain.replace('"net/rpc"', '"example.com/other/rpc"'),
        'ops/ops.go': tellerOps,
      },
      ledger,
      deploy,
    });
    expect([...rows(r), ...unresolved(r)].filter((x) => x.includes('RPC'))).toEqual([]);
  });
});
