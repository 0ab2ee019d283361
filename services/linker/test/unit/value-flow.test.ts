import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20, measured on applications nobody here had read: general value-flow rules those trials
 * showed missing, each with a small application written here and the exact links expected.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('value flow: settings reached through pointers, defaults and base paths', () => {
  it('Go: a field set through a pointer from the environment in one file is the URL host in another; routes under a base path read from a setting', async () => {
    const r = await reportOf({
      shop: {
        'main.go': lines(
          'package main',
          '',
          'import (',
          '  "net/http"',
          '  "os"',
          '  "github.com/gorilla/mux"',
          ')',
          '',
          'var (',
          '  prefix = ""',
          ')',
          '',
          'type server struct {',
          '  advisorAddr string',
          '}',
          '',
          'func loadEnv(target *string, key string) { *target = os.Getenv(key) }',
          '',
          'func main() {',
          '  s := new(server)',
          '  prefix = os.Getenv("PATH_PREFIX")',
          '  loadEnv(&s.advisorAddr, "ADVISOR_ADDR")',
          '  r := mux.NewRouter()',
          '  r.HandleFunc(prefix+"/basket", s.basket).Methods(http.MethodGet)',
          '  r.HandleFunc(prefix+"/advice", s.advice).Methods(http.MethodPost)',
          '  http.ListenAndServe(":8080", r)',
          '}',
        ),
        'advice.go': lines(
          'package main',
          '',
          'import "net/http"',
          '',
          'func (s *server) advice(w http.ResponseWriter, r *http.Request) {',
          '  target := "http://" + s.advisorAddr + "/suggest"',
          '  req, _ := http.NewRequest(http.MethodPost, target, r.Body)',
          '  http.DefaultClient.Do(req)',
          '}',
        ),
        'deploy.yaml': lines(
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata:',
          '  name: shop',
          'spec:',
          '  template:',
          '    spec:',
          '      containers:',
          '        - name: server',
          '          image: shop',
          '          env:',
          '            - name: ADVISOR_ADDR',
          '              value: "advisor:8080"',
        ),
      },
      advisor: {
        'app.py': lines(
          'from flask import Flask',
          'app = Flask(__name__)',
          '@app.route("/suggest", methods=["POST"])',
          'def suggest():',
          '    return {}',
        ),
      },
      load: {
        'locustfile.py': lines(
          'from locust import HttpUser, TaskSet',
          '',
          'def basket(l):',
          '    l.client.get("/basket")',
          '',
          'def ask(user):',
          '    user.client.post("/advice", {"q": 1})',
          '',
          'class Tasks(TaskSet):',
          '    tasks = {basket: 2, ask: 1}',
          '',
          'class Shopper(HttpUser):',
          '    tasks = [Tasks]',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'load locustfile.py:4 | GET /basket | shop main.go:24 GET /basket (gorilla/mux)',
      'load locustfile.py:7 | POST /advice | shop main.go:25 POST /advice (gorilla/mux)',
      'shop advice.go:7 | POST advisor/suggest | advisor app.py:3 POST /suggest (flask)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('Python: a dict literal read by key in another function, numbered str.format fields, a conditional on a setting with a literal default', async () => {
    const r = await reportOf({
      front: {
        'front.py': lines(
          'import os',
          'import requests',
          'from flask import Flask',
          'app = Flask(__name__)',
          'suffix = "" if os.environ.get("ZONE") is None else "." + os.environ.get("ZONE")',
          'stock_host = "stock" if (os.environ.get("STOCK_HOST") is None) else os.environ.get("STOCK_HOST")',
          'stock = {',
          '    "base": "http://{0}{1}:{2}".format(stock_host, suffix, "8080"),',
          '    "resource": "levels",',
          '}',
          '',
          'def get_json(url, **kwargs):',
          '    return requests.get(url, **kwargs)',
          '',
          '@app.route("/page/<int:item>")',
          'def page(item):',
          '    url = stock["base"] + "/" + stock["resource"] + "/" + str(item)',
          '    return get_json(url, timeout=3.0).text',
        ),
      },
      stock: {
        'server.py': lines(
          'from flask import Flask',
          'app = Flask(__name__)',
          '@app.route("/levels/<int:item>")',
          'def levels(item):',
          '    return {}',
        ),
      },
      audit: {
        'server.py': lines(
          'from flask import Flask',
          'app = Flask(__name__)',
          '@app.route("/levels/<int:item>")',
          'def levels(item):',
          '    return {}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'front front.py:18 | GET stock/levels/{} | stock server.py:3 GET /levels/<int:item> (flask)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('servers and clients met on unseen applications', () => {
  it('JAX-RS resources and the JAX-RS client through its builder variable; a ternary on a setting; WEBrick prefix mounts; regex routes (httpdispatcher, Express)', async () => {
    const r = await reportOf({
      shelf: {
        'src/main/java/shelf/ShelfResource.java': lines(
          'package shelf;',
          '',
          'import javax.ws.rs.*;',
          'import javax.ws.rs.client.Client;',
          'import javax.ws.rs.client.ClientBuilder;',
          'import javax.ws.rs.client.Invocation;',
          'import javax.ws.rs.client.WebTarget;',
          'import javax.ws.rs.core.Response;',
          '',
          '@Path("/")',
          'public class ShelfResource {',
          '  private static final String host = System.getenv("SCORES_HOST") == null ? "scores" : System.getenv("SCORES_HOST");',
          '  private static final String zone = System.getenv("ZONE") == null ? "" : ("." + System.getenv("ZONE"));',
          '  private static final String scores = String.format("http://%s%s:9080/scores", host, zone);',
          '',
          '  @GET',
          '  @Path("/shelves/{id}")',
          '  public Response shelf(@PathParam("id") int id) {',
          '    Client client = ClientBuilder.newClient();',
          '    WebTarget target = client.target(scores + "/" + id);',
          '    Invocation.Builder builder = target.request("application/json");',
          '    Response r = builder.get();',
          '    return r;',
          '  }',
          '',
          '  @POST',
          '  @Path("/shelves")',
          '  public Response create() {',
          '    return Response.ok().build();',
          '  }',
          '}',
        ),
      },
      scores: {
        'scores.js': lines(
          "var dispatcher = require('httpdispatcher')",
          'dispatcher.onGet(/^\\/scores\\/[0-9]*/, function (req, res) { res.end() })',
          "dispatcher.onPost('/scores', function (req, res) { res.end() })",
        ),
      },
      notes: {
        'notes.rb': lines(
          "require 'webrick'",
          'server = WEBrick::HTTPServer.new(:Port => 9080)',
          "server.mount_proc '/notes' do |req, res|",
          "  res.body = '{}'",
          'end',
          'server.start',
        ),
      },
      tags: {
        'tags.js': lines(
          "const express = require('express')",
          'const app = express()',
          'app.get(/^\\/tags\\/(\\w+)$/, (req, res) => res.json([]))',
          'app.listen(3000)',
        ),
      },
      front: {
        'front.py': lines(
          'import requests',
          'def page(i):',
          '    requests.get("http://shelf:9080/shelves/" + str(i))',
          '    requests.post("http://shelf:9080/shelves")',
          '    requests.get("http://notes:9080/notes/" + str(i))',
          '    requests.post("http://scores:9080/scores")',
          '    requests.get("http://tags:3000/tags/" + str(i))',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'front front.py:3 | GET shelf/shelves/{} | shelf src/main/java/shelf/ShelfResource.java:16 GET /shelves/{id} (jax-rs)',
      'front front.py:4 | POST shelf/shelves | shelf src/main/java/shelf/ShelfResource.java:26 POST /shelves (jax-rs)',
      'front front.py:5 | GET notes/notes/{} | notes notes.rb:3 ANY /notes/** (webrick)',
      'front front.py:6 | POST scores/scores | scores scores.js:3 POST /scores (httpdispatcher)',
      'front front.py:7 | GET tags/tags/{} | tags tags.js:3 GET /tags/{p1} (express)',
      'shelf src/main/java/shelf/ShelfResource.java:20 | GET scores/scores/{} | scores scores.js:2 GET /scores/{p1} (httpdispatcher)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('values held in settings objects and conditionals', () => {
  it('Python: a settings object built with keyword arguments in one file, read through self.config in another; JS: a conditional between two URLs that differ only in the query', async () => {
    const r = await reportOf({
      chat: {
        'app/main.py': lines(
          'import os',
          'from app.ui import ChatUi',
          'from app.settings import UiConfig',
          "ui = ChatUi(UiConfig(adviceUrl=f\"http://{os.getenv('ADVICE_HOST', 'advice')}:8010/prompt\"))",
        ),
        'app/settings.py': lines('from pydantic import BaseModel', 'class UiConfig(BaseModel):', '    adviceUrl: str'),
        'app/ui.py': lines(
          'import requests',
          'class ChatUi:',
          '    def __init__(self, config):',
          '        self.config = config',
          '    def ask(self, text):',
          '        return requests.post(self.config.adviceUrl, json={"q": text})',
        ),
      },
      advice: {
        'main.py': lines(
          'from fastapi import FastAPI',
          'app = FastAPI()',
          '@app.post("/prompt")',
          'def prompt():',
          '    return {}',
          '@app.get("/api/data")',
          'def data():',
          '    return {}',
        ),
      },
      load: {
        'script.js': lines(
          "import http from 'k6/http'",
          "const BASE_URL = __ENV.BASE_URL || 'http://advice:8010'",
          'export default function () {',
          '  const c = Math.random() > 0.5 ? "books" : null',
          '  const url = c !== null ? `${BASE_URL}/api/data?keys=${c}` : `${BASE_URL}/api/data?keys=None`',
          '  http.get(url)',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'chat app/ui.py:6 | POST advice/prompt | advice main.py:3 POST /prompt (fastapi)',
      'load script.js:6 | GET advice/api/data | advice main.py:6 GET /api/data (fastapi)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('formatting forms of each language (issue 20 item 1)', () => {
  it('Python % (tuple, single, %(name)s) and str.format with keywords; Java String.format and formatted(); Kotlin $name templates and String.format', async () => {
    const r = await reportOf({
      orders: {
        'app.py': lines(
          'from flask import Flask',
          'app = Flask(__name__)',
          '@app.route("/orders/<oid>")',
          'def get(oid):',
          '    return ""',
          '@app.route("/orders/<oid>/items", methods=["POST"])',
          'def add(oid):',
          '    return ""',
        ),
      },
      pyclient: {
        'client.py': lines(
          'import requests, os',
          'HOST = os.getenv("ORDERS_HOST", "orders")',
          'def a(oid):',
          '    requests.get("http://orders/orders/%s" % oid)',
          '    requests.post("http://%s/orders/%s/items" % (HOST, oid))',
          '    requests.get("http://%(host)s/orders/%(oid)d" % {"host": HOST, "oid": oid})',
          '    requests.get("http://{host}/orders/{oid}".format(host=HOST, oid=oid))',
          '    requests.get("http://%s/orders/100%%" % HOST)',
        ),
      },
      jclient: {
        'src/main/java/j/C.java': lines(
          'package j;',
          'class C {',
          '  void a(RestTemplate restTemplate, String id) {',
          '    restTemplate.getForObject(String.format("http://%s/orders/%s", "orders", id), String.class);',
          '    restTemplate.postForObject("http://orders/orders/%s/items".formatted(id), null, String.class);',
          '  }',
          '}',
        ),
      },
      kclient: {
        'src/main/kotlin/K.kt': lines(
          'val base = System.getenv("ORDERS") ?: "http://orders"',
          'fun a(client: HttpClient, id: String) {',
          '    client.get("$base/orders/${id}")',
          '    client.post(String.format("%s/orders/%s/items", base, id))',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'jclient src/main/java/j/C.java:4 | GET orders/orders/{} | orders app.py:3 GET /orders/<oid> (flask)',
      'jclient src/main/java/j/C.java:5 | POST orders/orders/{}/items | orders app.py:6 POST /orders/<oid>/items (flask)',
      'kclient src/main/kotlin/K.kt:3 | GET orders/orders/{} | orders app.py:3 GET /orders/<oid> (flask)',
      'kclient src/main/kotlin/K.kt:4 | POST orders/orders/{}/items | orders app.py:6 POST /orders/<oid>/items (flask)',
      'pyclient client.py:4 | GET orders/orders/{} | orders app.py:3 GET /orders/<oid> (flask)',
      'pyclient client.py:5 | POST orders/orders/{}/items | orders app.py:6 POST /orders/<oid>/items (flask)',
      'pyclient client.py:6 | GET orders/orders/{} | orders app.py:3 GET /orders/<oid> (flask)',
      'pyclient client.py:7 | GET orders/orders/{} | orders app.py:3 GET /orders/<oid> (flask)',
      'pyclient client.py:8 | GET orders/orders/100% | orders app.py:3 GET /orders/<oid> (flask)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('environment spellings: JavaScript destructuring and aliases of process.env', () => {
  it('const { X = "d" } = process.env, { X: local = "d" }, a bare { X } set by compose, and const env = process.env; env.X / env["X"]', async () => {
    const both = lines(
      "const app = require('express')();",
      "app.get('/orders/:id', h);",
      "app.get('/stock/:id', h);",
      "app.get('/users/:id', h);",
    );
    const r = await reportOf({
      orders: { 'server.js': both },
      stock: { 'server.js': both },
      web: {
        'src/client.js': lines(
          "const { STOCK_URL = 'http://stock', USERS_API: usersBase = 'http://orders' } = process.env;",
          'const { ORDERS_URL } = process.env;',
          'const env = process.env;',
          'export const a = (id) => fetch(`${STOCK_URL}/stock/${id}`);',
          "export const b = (id) => fetch(usersBase + '/users/' + id);",
          "export const c = (id) => fetch(ORDERS_URL + '/orders/' + id);",
          "export const d = (id) => fetch(env.ORDERS_URL + '/stock/' + id);",
          "export const e = (id) => fetch(env['STOCK_URL'] + '/orders/' + id);",
        ),
        'docker-compose.yml': lines(
          'services:',
          '  web:',
          '    build: .',
          '    environment:',
          '      ORDERS_URL: http://orders:3000',
          '      STOCK_URL: http://stock:3000',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/client.js:4 | GET stock/stock/{} | stock server.js:3 GET /stock/:id (express)',
      'web src/client.js:5 | GET orders/users/{} | orders server.js:4 GET /users/:id (express)',
      'web src/client.js:6 | GET orders/orders/{} | orders server.js:2 GET /orders/:id (express)',
      'web src/client.js:7 | GET orders/stock/{} | orders server.js:3 GET /stock/:id (express)',
      'web src/client.js:8 | GET stock/orders/{} | stock server.js:2 GET /orders/:id (express)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});
