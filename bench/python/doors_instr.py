"""One front door (or backoff's @on_exception) called N times: bench/doors_instr.sh counts its
instructions per call under callgrind, a run of N + 1 calls minus a run of 1 (what the first
call and the set-up cost cancels out). The doors and their arguments are bench_overhead.py's.

    .venv/bin/python bench/python/doors_instr.py DOOR N
"""

import sys

import backoff

from retry_core import Fleet, call_llm_with_retry


def fn():
    return 1


ANSWER = {"usage": {"prompt_tokens": 120, "completion_tokens": 40}}


def fn_usage():
    return ANSWER


@backoff.on_exception(backoff.constant, Exception, max_tries=3, interval=15, jitter=None)
def fn_backoff():
    return 1


FLEET = Fleet()
# Admission on, no contention (limits no call reaches): the answer's usage settles the slot.
ADMITTED = Fleet(admission={"mode": "static", "limits": {"requests": 1e12, "tokens": 1e12}})
ESTIMATE = {"messages": [{"role": "system", "content": "You are terse."},
                         {"role": "user", "content": "Say hello in five words."}], "max_tokens": 64}

# Each a call of no arguments, as the loop makes it; `plain` and `plain_usage` are the plain
# calls the others' overhead is counted over.
DOORS = {
    "plain": lambda: fn(),
    "plain_usage": lambda: fn_usage(),
    "backoff": lambda: fn_backoff(),
    "door": lambda: call_llm_with_retry(fn),
    "fleet": lambda: call_llm_with_retry(fn, fleet=FLEET, key="openai:gpt-4o"),
    "admission": lambda: call_llm_with_retry(fn_usage, fleet=ADMITTED, key="openai:gpt-4o"),
    "estimate": lambda: call_llm_with_retry(fn_usage, fleet=ADMITTED, key="openai:gpt-4o", estimate=ESTIMATE),
}


def main():
    door, n = DOORS[sys.argv[1]], int(sys.argv[2])
    for _ in range(n):
        door()


if __name__ == "__main__":
    main()
