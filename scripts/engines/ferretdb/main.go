// Command ferretdb-embedded runs FerretDB v1 (MongoDB wire protocol) on top of
// SQLite, for tests and local clusters. It embeds the
// github.com/FerretDB/FerretDB/ferretdb package because `go install
// .../cmd/ferretdb` panics on a missing generated version file.
//
// Usage: ferretdb -listen 127.0.0.1:27017 -data /path/to/dir [-log-level info]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	data := flag.String("data", "data", "SQLite data directory (the sqlite handler)")
	pgURL := flag.String("postgresql-url", "", "PostgreSQL connection string: use the postgresql handler instead of SQLite")
	logLevel := flag.String("log-level", "info", "log level: debug, info, warn or error")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		log.Fatalf("ferretdb: -log-level: %v", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	dir, err := filepath.Abs(*data)
	if err != nil {
		log.Fatalf("ferretdb: data dir: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatalf("ferretdb: data dir: %v", err)
	}

	cfg := &ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/",
	}
	backend := "sqlite " + dir
	if *pgURL != "" {
		cfg.Handler = "postgresql"
		cfg.PostgreSQLURL = *pgURL
		cfg.SQLiteURL = ""
		backend = "postgresql"
	}
	f, err := ferretdb.New(cfg)
	if err != nil {
		log.Fatalf("ferretdb: new: %v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	// Run binds the listener asynchronously; print a readiness line once the
	// port accepts connections so scripts can wait for it.
	go func() {
		for ctx.Err() == nil {
			c, err := net.DialTimeout("tcp", *listen, 200*time.Millisecond)
			if err == nil {
				_ = c.Close()
				fmt.Printf("ferretdb: listening on %s (%s)\n", *listen, backend)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()

	if err := <-done; err != nil {
		log.Fatalf("ferretdb: run: %v", err)
	}
	fmt.Println("ferretdb: stopped")
}
