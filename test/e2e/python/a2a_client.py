"""Drives our gateway with the official A2A Python client (a2a-sdk 0.3.x) for test/e2e/python-client.test.ts.

Usage: python a2a_client.py <scenario> <agent base URL> <a2a key> [text]
Prints one JSON object: what the client ended with (state, answer text as the client assembled it, the
client's own warnings, e.g. "Received append=True for nonexistent artifact ... Ignoring chunk").
"""

import asyncio
import json
import logging
import sys
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import DataPart, Message, Part, Role, Task, TaskIdParams, TaskQueryParams, TextPart


class Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


def message(text: str, work_ms: int | None = None) -> Message:
    parts = [Part(root=TextPart(text=text))]
    if work_ms is not None:
        parts.append(Part(root=DataPart(data={'workMs': work_ms})))
    return Message(role=Role.user, parts=parts, message_id=uuid.uuid4().hex)


def answer(task: Task) -> str:
    return ''.join(
        p.root.text for a in (task.artifacts or []) for p in a.parts if isinstance(p.root, TextPart)
    )


def summary(task: Task) -> dict:
    return {'id': task.id, 'state': task.status.state.value, 'text': answer(task)}


async def last_task(events) -> tuple[Task | None, list[str]]:
    """The task as the client assembled it from a stream, and the kinds of the updates it saw."""
    task, kinds = None, []
    async for ev in events:
        if isinstance(ev, Message):
            kinds.append('message')
            continue
        task, update = ev
        kinds.append(update.kind if update is not None else 'task')
    return task, kinds


async def main(scenario: str, base: str, key: str, text: str) -> dict:
    async with httpx.AsyncClient(headers={'Authorization': f'Bearer {key}'}, timeout=60) as http:
        card = await A2ACardResolver(http, base).get_agent_card()
        streaming = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
        blocking = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
        background = ClientFactory(ClientConfig(httpx_client=http, streaming=False, polling=True)).create(card)
        out: dict = {'streaming': bool(card.capabilities.streaming)}
        if scenario == 'send':
            task, _ = await last_task(blocking.send_message(message(text)))
            out['task'] = summary(task)
        elif scenario == 'stream':
            task, kinds = await last_task(streaming.send_message(message(text)))
            out['task'] = summary(task)
            out['kinds'] = kinds
        elif scenario == 'get':
            sent, _ = await last_task(blocking.send_message(message(text)))
            out['task'] = summary(await blocking.get_task(TaskQueryParams(id=sent.id)))
        elif scenario == 'cancel':
            started, _ = await last_task(background.send_message(message(text, work_ms=60_000)))
            out['started'] = summary(started)
            out['task'] = summary(await blocking.cancel_task(TaskIdParams(id=started.id)))
            out['after'] = summary(await blocking.get_task(TaskQueryParams(id=started.id)))
        elif scenario == 'resubscribe':
            started, _ = await last_task(background.send_message(message(text, work_ms=1_500)))
            out['started'] = summary(started)
            task, kinds = await last_task(streaming.resubscribe(TaskIdParams(id=started.id)))
            out['task'] = summary(task)
            out['kinds'] = kinds
        else:
            raise SystemExit(f'unknown scenario {scenario}')
        return out


if __name__ == '__main__':
    warnings = Warnings()
    logging.getLogger().addHandler(warnings)
    scenario, base, key = sys.argv[1:4]
    result = asyncio.run(main(scenario, base, key, sys.argv[4] if len(sys.argv) > 4 else 'hello'))
    result['warnings'] = warnings.seen
    print(json.dumps(result))
