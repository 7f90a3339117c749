"""classify(a real openai.RateLimitError) N times: bench/callgrind_classify.sh counts its instructions
per call through the Python front door under callgrind."""
import sys, httpx, openai, retry_core
n = int(sys.argv[1])
body = {"error": {"message": "Rate limit reached for gpt-4o in organization org-AbC123 on tokens per min (TPM): Limit 30000, Used 27904, Requested 5000. Please try again in 5.808s.", "type": "tokens", "param": None, "code": "rate_limit_exceeded"}}
req = httpx.Request("POST", "https://api.openai.com/v1/chat/completions")
resp = httpx.Response(429, json=body, headers={"retry-after": "7"}, request=req)
exc = openai.RateLimitError("Error code: 429 - " + str(body), response=resp, body=body["error"])
retry_core.classify(exc)
for _ in range(n):
    retry_core.classify(exc)
