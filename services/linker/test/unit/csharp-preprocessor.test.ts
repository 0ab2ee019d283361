import { describe, expect, it } from 'vitest';
import { activeCSharp, conditionHolds } from '../../src/domain/extract/csharp-preprocess';
import { reportOf, rows } from '../support/in-memory-report';

// A controller with two variants of its actions: the compiled one is chosen by a symbol.
const controller = (define: string): string => `${define}
namespace Shop.Controllers;

[ApiController]
[Route("")]
public class OrdersController : ControllerBase
{
#if !USE_QUEUE
    [HttpPost("orders")]
    public async Task<ActionResult> Place(Order o, [FromServices] DaprClient dapr)
    {
        await dapr.PublishEventAsync("pubsub", "orders-direct", o);
        return Ok();
    }
#else
    [HttpPost("orders")]
    public async Task<ActionResult> Place(Order o, [FromServices] DaprClient dapr)
    {
        await dapr.PublishEventAsync("pubsub", "orders-queued", o);
        return Ok();
    }
#endif
}
`;
const consumer = {
  'Controllers/Sub.cs': `using Dapr;
[ApiController]
public class SubController : ControllerBase
{
    [Topic("pubsub", "orders-direct")]
    [HttpPost("direct")]
    public IActionResult Direct() => Ok();
    [Topic("pubsub", "orders-queued")]
    [HttpPost("queued")]
    public IActionResult Queued() => Ok();
}
`,
};

describe('C# conditional compilation (#if / #else / #endif)', () => {
  it('an undefined symbol takes the `#if !X` branch: its actions serve, the `#else` branch yields nothing', async () => {
    const web = { 'app.js': `fetch('http://shop/orders', { method: 'POST' });\n` };
    const r = await reportOf({ shop: { 'Controllers/OrdersController.cs': controller('') }, consumer, web });
    expect(rows(r)).toEqual([
      'web app.js:1 | POST shop/orders | shop Controllers/OrdersController.cs:9 POST /orders (aspnetcore-mvc)',
      'shop Controllers/OrdersController.cs:12 | publish Dapr / `orders-direct` (pubsub `pubsub`) | consumer Controllers/Sub.cs:5 consume Dapr topic `orders-direct` (pubsub `pubsub`)',
    ]);
  });

  it("the file's `#define` takes the `#else` branch", async () => {
    const r = await reportOf({
      shop: { 'Controllers/OrdersController.cs': controller('#define USE_QUEUE') },
      consumer,
    });
    expect(rows(r)).toEqual([
      'shop Controllers/OrdersController.cs:19 | publish Dapr / `orders-queued` (pubsub `pubsub`) | consumer Controllers/Sub.cs:8 consume Dapr topic `orders-queued` (pubsub `pubsub`)',
    ]);
  });

  it("the project's DefineConstants define a symbol for every file of the project", async () => {
    const r = await reportOf({
      shop: {
        'Controllers/OrdersController.cs': controller(''),
        'Shop.csproj': `<Project Sdk="Microsoft.NET.Sdk.Web"><PropertyGroup><DefineConstants>$(DefineConstants);USE_QUEUE</DefineConstants></PropertyGroup></Project>`,
      },
      consumer,
    });
    expect(rows(r)).toEqual([
      'shop Controllers/OrdersController.cs:19 | publish Dapr / `orders-queued` (pubsub `pubsub`) | consumer Controllers/Sub.cs:8 consume Dapr topic `orders-queued` (pubsub `pubsub`)',
    ]);
  });

  it('evaluates conditions and keeps offsets (nested blocks, #elif, #undef)', () => {
    const d = new Set(['A']);
    expect(conditionHolds('A && !B', d)).toBe(true);
    expect(conditionHolds('(A || B) && B', d)).toBe(false);
    expect(conditionHolds('A == true', d)).toBe(true);
    expect(conditionHolds('B != false', d)).toBe(false);
    const text = '#if A\nx1\n#if B\nx2\n#elif A\nx3\n#else\nx4\n#endif\n#undef A\n#if A\nx5\n#endif\n#endif\nx6';
    const out = activeCSharp(text, ['A']);
    expect(out.length).toBe(text.length);
    expect(
      out
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    ).toEqual(['x1', 'x3', 'x6']);
  });
});
