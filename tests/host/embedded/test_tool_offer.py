"""The embedded host's ``tools/offer`` waterfall: what a request offers the model, and a call to a
tool it did not offer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.embedded.tools import TOOLS
from compat_adapter.host.offer import ToolOffer, unoffered_text
from compat_adapter.host.script import Reply, call
from compat_adapter.host.surfaces import DSH_0_2_SURFACE, EMBEDDED_SURFACE


def test_the_embedded_host_offers_the_seam_and_the_dsh_tables_do_not() -> None:
    assert "tools/offer" in EMBEDDED_SURFACE.seams and "tools/offer" not in DSH_0_2_SURFACE.seams


async def test_every_request_offers_the_catalogue_by_default(tmp_path: Path) -> None:
    offers: list[ToolOffer] = []
    async with MemoryHost(tmp_path) as host:

        async def seen(offer: ToolOffer, next: Any) -> Any:
            offers.append(offer)
            return await next()

        host.on("tools/offer", seen)
        agent = await host.create_agent(script=[Reply(calls=(call("read", path="x"),)), "done"])
        await agent.run_turn("go")
    assert [o.tools for o in offers] == [tuple(TOOLS)] * 2 and agent.offered == tuple(TOOLS)


async def test_a_tool_not_offered_does_not_run(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:

        async def no_write(offer: ToolOffer, next: Any) -> Any:
            return tuple(t for t in await next() if t != "write")

        host.on("tools/offer", no_write)
        agent = await host.create_agent(script=[Reply(calls=(call("write", path="f.txt", content="x"),)), "done"])
        await agent.run_turn("go")
    results = agent.session.of_type("tool/result")
    assert [(r.data["isError"], r.data["text"]) for r in results] == [(True, unoffered_text("write"))]
    assert not (tmp_path / "f.txt").exists()


async def test_an_answer_that_is_no_tuple_of_names_offers_the_catalogue(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:

        async def broken(offer: ToolOffer, next: Any) -> Any:
            return ["bash"]

        host.on("tools/offer", broken)
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("go")
    assert agent.offered == tuple(TOOLS)
    assert any("tools/offer" in r.message for r in host.records)
