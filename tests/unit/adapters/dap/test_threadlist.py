"""The `threads` body made once per thread list: sent as the same JSON a plain body gives,
made again when a thread of the list is another object (renamed, new, gone)."""

from __future__ import annotations

import json

from aliceserver.adapters.dap.messages import EncodedBody, encode
from aliceserver.adapters.dap.threadlist import ThreadList
from aliceserver.debuggers.model import ThreadInfo, ThreadState


def _info(tid: int, name: str) -> ThreadInfo:
    return ThreadInfo(tid, name, ThreadState.STOPPED, None, None)


def test_an_encoded_body_is_sent_as_the_body_itself() -> None:
    for body in ({"threads": [{"id": 7, "name": "é [7]"}]}, {"text": "\ud800"}, {}):
        message = {"type": "response", "body": EncodedBody(body), "seq": 3}
        assert json.loads(encode(message)) == json.loads(encode({**message, "body": body}))


def test_the_body_is_made_again_only_for_other_thread_infos() -> None:
    shown = ThreadList()
    main, worker = _info(10, "main"), _info(11, "")
    first = shown.body([main, worker])
    assert first == {"threads": [{"id": 10, "name": "main [10]"}, {"id": 11, "name": "thread [11]"}]}
    assert shown.body([main, worker]) is first
    renamed = shown.body([main, _info(11, "worker")])
    assert renamed["threads"][1]["name"] == "worker [11]"
    assert shown.body([main])["threads"] == [{"id": 10, "name": "main [10]"}]
