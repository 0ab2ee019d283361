import { describe, expect, it } from 'vitest';
import { reportOf, rows } from '../support/in-memory-report';

// Routes declared as rows of a table in one file and registered in a loop in another (the swagger-codegen
// go-server layout): positional rows on a gorilla subrouter, and keyed rows with `strings.ToUpper` methods.
const popular = {
  'router/routes.go': `package router

import (
	"net/http"

	handler "example.com/popular/handlers"
)

type Route struct {
	Name        string
	Method      string
	Pattern     string
	HandlerFunc http.HandlerFunc
}

type Routes []Route

var routes = Routes{
	Route{
		"GetProducts",
		"GET",
		"/products",
		handler.GetProducts,
	},
}
`,
  'router/router.go': `package router

import "github.com/gorilla/mux"

func NewRouter() *mux.Router {
	router := mux.NewRouter().StrictSlash(true)
	sub := router.PathPrefix("/v1").Subrouter()
	for _, route := range routes {
		sub.
			HandleFunc(route.Pattern, route.HandlerFunc).
			Name(route.Name).
			Methods(route.Method)
	}
	return router
}
`,
};

const petstore = {
  'go/routers.go': `package petstore

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

type Route struct {
	Name        string
	Method      string
	Pattern     string
	HandlerFunc http.HandlerFunc
}

func NewRouter() *mux.Router {
	router := mux.NewRouter()
	api := router.PathPrefix("/v2").Subrouter()
	for _, route := range routes {
		var handler http.Handler = route.HandlerFunc
		api.Methods(route.Method).Path(route.Pattern).Name(route.Name).Handler(handler)
	}
	return router
}

var routes = []Route{
	{Name: "Index", Method: "GET", Pattern: "/", HandlerFunc: Index},
	{Name: "DeletePet", Method: strings.ToUpper("Delete"), Pattern: "/pet/{petId}", HandlerFunc: DeletePet},
	{"AddPet", strings.ToUpper("Post"), "/pet", AddPet},
}
`,
};

const caller = {
  'client.go': `package main

import "net/http"

func main() {
	_, _ = http.Get("http://popular:80/v1/products")
	req, _ := http.NewRequest("DELETE", "http://petstore:8080/v2/pet/7", nil)
	_, _ = http.DefaultClient.Do(req)
	_, _ = http.Post("http://petstore:8080/v2/pet", "application/json", nil)
}
`,
};

describe('Go: route tables registered in a loop', () => {
  it('each row of the table is a route, with its own method, under the prefix of the router the loop registers on', async () => {
    const r = await reportOf({ caller, popular, petstore });
    expect(rows(r)).toEqual([
      'caller client.go:6 | GET popular/v1/products | popular router/routes.go:22 GET /v1/products (gorilla/mux)',
      'caller client.go:7 | DELETE petstore/v2/pet/7 | petstore go/routers.go:29 DELETE /v2/pet/{petId} (gorilla/mux)',
      'caller client.go:9 | POST petstore/v2/pet | petstore go/routers.go:30 POST /v2/pet (gorilla/mux)',
    ]);
  });
});
