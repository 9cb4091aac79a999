"""Schemathesis hooks for Kontor's fuzz run (tests/api/fuzz.rs).

An ndjson body (import, verify) is text: the generated string is sent as it is, like
text/plain. The server must refuse every such random upload with a 4xx problem.

A standing order's id is the server's: a made-up one is 404, and one the fuzzer cancelled
is gone. So that editing and cancelling an order reach a real one, a call that names an
order by a well-formed id names the fuzzer's own standing order in the fuzz game instead,
set first if it has none (an income rule, which fits at any time of the game), as long as
the fuzzer's credentials still work.
"""

import json
import os
import urllib.error
import urllib.request

import schemathesis

schemathesis.serializer.alias("application/x-ndjson", "text/plain")

ORDER_PATH = "/games/{game_id}/orders/{order_id}"


def _standing_order_id():
    base = os.environ["KONTOR_FUZZ_BASE"]
    game = os.environ["KONTOR_FUZZ_GAME"]
    headers = {
        "Authorization": "Bearer " + os.environ["KONTOR_FUZZ_TOKEN"],
        "Content-Type": "application/json",
    }
    url = f"{base}/api/v1/games/{game}/orders"
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as answer:
        orders = json.load(answer)["orders"]
    if not orders:
        body = json.dumps({"order": {"type": "income", "rule": {"kind": "best"}}}).encode()
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        with urllib.request.urlopen(request) as answer:
            orders = json.load(answer)["orders"]
    return orders[0]["id"]


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    order_id = (case.path_parameters or {}).get("order_id")
    well_formed = (isinstance(order_id, int) and order_id >= 0) or (
        isinstance(order_id, str) and order_id.isascii() and order_id.isdigit()
    )
    if case.operation.path.endswith(ORDER_PATH) and well_formed:
        try:
            case.path_parameters["order_id"] = _standing_order_id()
        except urllib.error.HTTPError:
            # The fuzzer's own calls may have ended its session (a logout, a deleted token):
            # the call then goes as generated and is refused as such.
            pass
