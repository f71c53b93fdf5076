"""bank_client.py: the few calls of the lab's HTTP contract (docs/reference/http-contract.md "The HTTP contract", openapi.yaml) that
make multi's own checks send, each to the instance the check names.

    bank = BankClient(admin_token)
    alice = bank.open_customer(url, "alice", [10000, 0])        # a client and its accounts (cents)
    answer = bank.transfer(url, alice, key, 1500, "rent", {"Lab-Delay-Ms": "3000"})
    answer.status, answer.replayed, answer.body                  # status 0: no answer came
    bank.advance_clock(url, ms); bank.balance(url, alice, alice.accounts[0])

Thread-safe: a check sends one request from a thread while it crashes or pauses the instance serving it.
"""
import http.client
import json
import threading
import urllib.error
import urllib.request

REQUEST_TIMEOUT_S = 30     # far above Lab-Delay-Ms's 10 s cap: a request that times out is lost, not slow
# No proxy for 127.0.0.1, whatever http_proxy says: an answer must come from the instance itself.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    @property
    def replayed(self):
        return self.headers.get("Idempotent-Replayed") == "true"

    def json(self):
        return json.loads(self.body)

    def __str__(self):
        return "no answer" if self.status == 0 else f"{self.status}{' (replayed)' if self.replayed else ''}"


class Customer:
    def __init__(self, client_id, token, accounts):
        self.client_id, self.token, self.accounts = client_id, token, accounts


class BankClient:
    def __init__(self, admin_token):
        self.admin_token = admin_token
        self.requests = 0                # every request sent, for the table
        self._lock = threading.Lock()    # guards requests

    def send(self, method, url, body=None, headers=None):
        """One request. Any HTTP status is an Answer; a refused, reset or timed-out connection is status 0."""
        with self._lock:
            self.requests += 1
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with OPENER.open(req, timeout=REQUEST_TIMEOUT_S) as res:
                return Answer(res.status, res.headers, res.read())
        except urllib.error.HTTPError as e:
            return Answer(e.code, e.headers, e.read())
        except (OSError, http.client.HTTPException) as e:   # URLError and a reset connection are OSErrors
            return Answer(0, {}, str(e).encode())

    def admin(self, url, path, body):
        answer = self.send("POST", url + path, body, {"Authorization": "Bearer " + self.admin_token})
        if answer.status not in (200, 201):
            raise RuntimeError(f"POST {path} answered {answer.status}: {answer.body[:200]!r}")
        return answer.json()

    def open_customer(self, url, name, balances, currency="USD"):
        client = self.admin(url, "/admin/clients", {"name": name})
        accounts = [self.admin(url, "/admin/accounts", {"client_id": client["id"], "balance": b, "currency": currency})
                    ["id"] for b in balances]
        return Customer(client["id"], client["token"], accounts)

    def advance_clock(self, url, ms):
        self.admin(url, "/admin/clock", {"advance_ms": ms})

    def transfer(self, url, customer, key, amount, memo, headers=None):
        """From the customer's first account to its second. The key is sent as an sf-string (quoted)."""
        body = {"from_account": customer.accounts[0], "to_account": customer.accounts[1], "amount": amount,
                "currency": "USD", "memo": memo}
        return self.send("POST", url + "/transfers", body,
                         {"Authorization": "Bearer " + customer.token, "Idempotency-Key": f'"{key}"', **(headers or {})})

    def balance(self, url, customer, account):
        answer = self.send("GET", f"{url}/accounts/{account}", headers={"Authorization": "Bearer " + customer.token})
        if answer.status != 200:
            raise RuntimeError(f"GET /accounts/{account} answered {answer.status}")
        return answer.json()["balance"]

