import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20: actix-web applications as its guide writes them. Routes declared in a `ServiceConfig` function
 * (`web::scope` / `web::resource` / `.route(web::get().to(h))`, guards and middleware in the chains), handlers
 * with attribute routes registered under a scope, and awc/reqwest calls whose URL is `format!` over a
 * constant of another module, a `let` per handler and a local reassigned in a `match` arm.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('actix-web service configuration and Rust client URLs', () => {
  it('nested scopes and resources, guards and wrap, attribute handlers under a scope; format! over module constants, match-arm reassignment', async () => {
    const r = await reportOf({
      gateway: {
        'src/constants.rs': lines(
          'pub const CATALOG: &str = "http://catalog:7001";',
          'pub const SEARCH: &str = "http://search:7002";',
        ),
        'src/handlers.rs': lines(
          'use crate::constants;',
          'pub async fn list(q: web::Query<Q>) -> HttpResponse {',
          '    let mut url = format!("{}{}", &constants::CATALOG, "/v1/items");',
          '    match q.term {',
          '        Some(t) => { url = format!("{}{}{}", &constants::SEARCH, "/v1/find?term=", t); }',
          '        None => {}',
          '    }',
          '    let resp = awc::Client::new().get(url).send().await;',
          '}',
          'pub async fn one(id: web::Path<i32>, req: HttpRequest) -> HttpResponse {',
          '    let token = req.headers().get("Authorization").unwrap();',
          '    let url = format!("{}/v1/items/{}", constants::CATALOG, id.into_inner());',
          '    let resp = reqwest::get(url).await;',
          '}',
          'pub async fn add(body: web::Json<Item>, http_request: HttpRequest) -> HttpResponse {',
          '    let auth = http_request.headers().get("Authorization");',
          '    let client = awc::Client::new();',
          '    let url = format!("{}{}", &constants::CATALOG, "/v1/items");',
          '    let resp = client',
          '        .post(url)',
          '        .send_json(&body.into_inner())',
          '        .await;',
          '}',
        ),
      },
      catalog: {
        'src/config.rs': lines(
          'use actix_web::{guard, web};',
          'pub fn config_services(cfg: &mut web::ServiceConfig) {',
          '    cfg.service(',
          '        web::scope("/v1")',
          '            .service(health::ping)',
          '            .service(',
          '                web::scope("/items")',
          '                    .service(',
          '                        web::resource("")',
          '                            .route(web::get().to(items::list))',
          '                            .route(',
          '                                web::post()',
          '                                    .guard(guard::fn_guard(|head| is_admin(head)))',
          '                                    .to(items::add),',
          '                            ),',
          '                    )',
          '                    .service(',
          '                        web::resource("/{id}")',
          '                            .route(web::get().to(items::one))',
          '                            .wrap(auth.clone()),',
          '                    ),',
          '            ),',
          '    );',
          '}',
        ),
        'src/health.rs': lines(
          '#[get("/ping")]',
          'pub async fn ping() -> HttpResponse { HttpResponse::Ok().finish() }',
        ),
        'src/main.rs': lines(
          'async fn main() -> std::io::Result<()> {',
          '    HttpServer::new(move || App::new().configure(config::config_services))',
          '        .bind("0.0.0.0:7001")?',
          '        .run()',
          '        .await',
          '}',
        ),
      },
      search: {
        'src/main.rs': lines(
          'async fn main() -> std::io::Result<()> {',
          '    HttpServer::new(move || {',
          '        App::new().service(web::scope("/v1").route("/find", web::get().to(find)).service(web::resource("/all").to(all)))',
          '    })',
          '    .run()',
          '    .await',
          '}',
        ),
      },
      monitor: {
        'src/main.rs': lines(
          'async fn probe() {',
          '    let url = format!("{CATALOG}/v1/ping");',
          '    awc::Client::new().get(url).send().await;',
          '    awc::Client::new().delete("http://search:7002/v1/all").send().await;',
          '}',
        ),
        'src/settings.rs': lines('pub const CATALOG: &str = "http://catalog:7001";'),
      },
    });
    expect(rows(r)).toEqual([
      // One call, two URLs: the `let` and its reassignment in a `match` arm both reach it.
      'gateway src/handlers.rs:8 | GET catalog/v1/items | catalog src/config.rs:10 GET /v1/items (actix-web)',
      'gateway src/handlers.rs:8 | GET search/v1/find | search src/main.rs:3 GET /v1/find (actix-web)',
      'gateway src/handlers.rs:13 | GET catalog/v1/items/{} | catalog src/config.rs:19 GET /v1/items/{id} (actix-web)',
      'gateway src/handlers.rs:19 | POST catalog/v1/items | catalog src/config.rs:12 POST /v1/items (actix-web)',
      'monitor src/main.rs:3 | GET catalog/v1/ping | catalog src/health.rs:1 GET /v1/ping (actix-web)',
      'monitor src/main.rs:4 | DELETE search/v1/all | search src/main.rs:3 ANY /v1/all (actix-web)',
    ]);
    // A request's header read (`headers().get("Authorization")`) is no HTTP call.
    expect(unresolved(r)).toEqual([]);
  });

  it('localhost:<port>: of two sources listening on one port, the one whose deployment publishes it', async () => {
    const r = await reportOf({
      gateway: {
        '.env': lines('PORT=8080'),
        'src/main.rs': lines(
          'pub const SEARCH: &str = "http://localhost:8083";',
          'async fn find() { awc::Client::new().get(format!("{}{}", SEARCH, "/find")).send().await; }',
        ),
      },
      search: {
        '.env': lines('PORT=8083'),
        'src/main.rs': lines('#[get("/find")]', 'async fn find() -> HttpResponse { HttpResponse::Ok().finish() }'),
      },
      other: {
        '.env': lines('PORT=8084'),
        'src/main.rs': lines('#[get("/find")]', 'async fn find() -> HttpResponse { HttpResponse::Ok().finish() }'),
      },
      deploy: {
        // The gateway's container is told to listen on 8083 but is published on 8080 only.
        'docker-compose.yml': lines(
          'services:',
          '  gateway:',
          '    build: ./gateway',
          '    environment:',
          '      - PORT=8083',
          '    ports:',
          '      - "8080:8080"',
          '  search:',
          '    build: ./search',
          '    environment:',
          '      - PORT=8083',
          '    ports:',
          '      - "8083:8083"',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'gateway src/main.rs:2 | GET localhost/find | search src/main.rs:1 GET /find (actix-web)',
    ]);
  });
});
