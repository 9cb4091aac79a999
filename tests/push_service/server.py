"""A loopback Web Push service for the tests (tests/api/push.rs), built on implementations
independent of the server's: py-vapid checks the VAPID token (RFC 8292), http-ece decrypts
the aes128gcm body (RFC 8291), with keys made here by `cryptography`.

    POST /subscriptions            {"name"} -> a new subscription {endpoint, keys: {p256dh, auth}}
    POST /push/<name>              what the server sends; checked, decrypted and recorded
    POST /behaviour/<name>         {"status", "times", "retry_after"}: answer the next `times`
                                   pushes to <name> with `status` instead of 201
    GET  /received                 {"accepted": [{name, payload, ttl, urgency, topic, aud, sub}],
                                    "rejected": [{name, reason}], "answered": [{name, status}]}

Prints `PORT <n>` on its first line once it listens on 127.0.0.1.
"""

import base64
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import py_vapid
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

LOCK = threading.Lock()
SUBSCRIPTIONS = {}  # name -> (private key, auth secret)
BEHAVIOUR = {}  # name -> {"status", "times", "retry_after"}
ACCEPTED, REJECTED, ANSWERED = [], [], []


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body=None, headers=()):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def origin(self):
        return "http://%s:%d" % self.server.server_address[:2]

    def do_GET(self):
        if self.path == "/received":
            with LOCK:
                return self.reply(200, {"accepted": ACCEPTED, "rejected": REJECTED, "answered": ANSWERED})
        self.reply(404)

    def do_POST(self):
        body = self.body()
        if self.path == "/subscriptions":
            name = json.loads(body)["name"]
            key = ec.generate_private_key(ec.SECP256R1())
            auth = __import__("os").urandom(16)
            public = key.public_key().public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
            )
            with LOCK:
                SUBSCRIPTIONS[name] = (key, auth)
            return self.reply(200, {
                "endpoint": "%s/push/%s" % (self.origin(), name),
                "keys": {"p256dh": b64url(public), "auth": b64url(auth)},
            })
        if self.path.startswith("/behaviour/"):
            with LOCK:
                BEHAVIOUR[self.path[len("/behaviour/"):]] = json.loads(body)
            return self.reply(200, {})
        if self.path.startswith("/push/"):
            return self.push(self.path[len("/push/"):], body)
        self.reply(404)

    def push(self, name, body):
        def reject(status, reason):
            with LOCK:
                REJECTED.append({"name": name, "reason": reason})
            self.reply(status, {"reason": reason})

        with LOCK:
            subscription = SUBSCRIPTIONS.get(name)
            behaviour = BEHAVIOUR.get(name)
            if behaviour and behaviour.get("times", 0) > 0:
                behaviour["times"] -= 1
            else:
                behaviour = None
        if subscription is None:
            return reject(404, "no such subscription")
        # RFC 8292: `vapid t=<JWT>, k=<public key>`; py-vapid reads it without the space.
        auth = self.headers.get("Authorization", "")
        try:
            if not py_vapid.Vapid02.verify(auth.replace(", ", ",")):
                return reject(401, "the VAPID signature does not verify")
        except Exception as e:  # a malformed header
            return reject(401, "unreadable VAPID header: %s" % e)
        token = auth.split("t=", 1)[1].split(",", 1)[0].strip()
        claims = json.loads(unb64url(token.split(".")[1]))
        if claims.get("aud") != self.origin():
            return reject(403, "aud %r is not this origin %r" % (claims.get("aud"), self.origin()))
        now = time.time()
        if not (now < claims.get("exp", 0) <= now + 24 * 3600):
            return reject(403, "exp is not within the next 24 hours")
        if not claims.get("sub"):
            return reject(403, "no sub")
        if self.headers.get("Content-Encoding") != "aes128gcm":
            return reject(415, "not aes128gcm")
        if self.headers.get("TTL") is None:
            return reject(400, "no TTL")
        key, secret = subscription
        try:
            plain = http_ece.decrypt(body, private_key=key, auth_secret=secret, version="aes128gcm")
            payload = json.loads(plain)
        except Exception as e:
            return reject(400, "cannot decrypt: %s" % e)
        if behaviour is not None:
            with LOCK:
                ANSWERED.append({"name": name, "status": behaviour["status"]})
            headers = []
            if behaviour.get("retry_after") is not None:
                headers.append(("Retry-After", str(behaviour["retry_after"])))
            return self.reply(behaviour["status"], {}, headers)
        with LOCK:
            ACCEPTED.append({
                "name": name,
                "payload": payload,
                "ttl": self.headers.get("TTL"),
                "urgency": self.headers.get("Urgency"),
                "topic": self.headers.get("Topic"),
                "aud": claims["aud"],
                "sub": claims["sub"],
                "size": len(body),
            })
            ANSWERED.append({"name": name, "status": 201})
        self.reply(201)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print("PORT %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
