"""Schemathesis hooks for Kontor's fuzz run (tests/api/fuzz.rs).

An ndjson body (import, verify) is text: the generated string is sent as it is, like
text/plain. The server must refuse every such random upload with a 4xx problem.
"""

import schemathesis

schemathesis.serializer.alias("application/x-ndjson", "text/plain")
