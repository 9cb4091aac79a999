"""Verifies a webhook request with the Standard Webhooks reference library (PyPI
`standardwebhooks`), an implementation independent of the server's.

Usage: verify.py SECRET < request.json, where request.json is {"headers": {name: value},
"body": "<the raw body as text>"}. Exits 0 if the signature verifies (and prints the payload
as the library parsed it), 1 if it does not.
"""

import json
import sys

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def main() -> int:
    secret = sys.argv[1]
    request = json.load(sys.stdin)
    try:
        payload = Webhook(secret).verify(request["body"], request["headers"])
    except WebhookVerificationError as error:
        print(f"not verified: {error}", file=sys.stderr)
        return 1
    print(json.dumps(payload))
    return 0


if __name__ == "__main__":
    sys.exit(main())
