"""Charts for bench/results/REPORT.md, from the CSV files retry-sim writes.

    python sim/charts.py bench/results

Writes time_to_success.png (policy x scenario: time to success, or when it gave up, and the
ratio to the oracle) and amplification.png (offered / base load against the number of agents).
Every number comes from the CSV; nothing here is a constant result.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402

SCENARIO_LABELS = {
    "client_error": "401",
    "outage_20s": "20 s outage\n(503)",
    "outage_2min": "2 min outage\n(503)",
    "rate_limit_7s": "429,\nretry-after 7 s",
    "overload_45s": "45 s overload\n(529)",
    "orphan_tool_call": "orphan\ntool call",
    "context_overflow": "context\noverflow",
}

# 0: within 1.25x of the oracle, 1: within 2x, 2: slower, 3: gave up where the oracle succeeds.
COLOURS = ListedColormap(["#b7e1b0", "#f6e7a1", "#f4b183", "#e06666"])


def save(fig, out: Path) -> None:
    """PNG with an adaptive 256-colour palette: a third of the size, the same to the eye."""
    from PIL import Image  # pillow comes with matplotlib

    fig.savefig(out)
    plt.close(fig)
    with Image.open(out) as im:
        small = im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(out, optimize=True)


def read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def time_to_success(rows: list[dict[str, str]], out: Path) -> None:
    clients = list(dict.fromkeys(r["client"] for r in rows))
    scenarios = list(dict.fromkeys(r["scenario"] for r in rows))
    grid = [[0] * len(scenarios) for _ in clients]
    text = [[""] * len(scenarios) for _ in clients]
    for r in rows:
        i, j = clients.index(r["client"]), scenarios.index(r["scenario"])
        calls = float(r["calls_mean"])
        end = float(r["end_mean"])
        oracle_ok = r["oracle_success"] == "true"
        ok = float(r["success_rate"])
        if r["ratio_mean"]:
            ratio = float(r["ratio_mean"])
            grid[i][j] = 0 if ratio <= 1.25 else 1 if ratio <= 2 else 2
            what = f"{end:.1f} s" if oracle_ok else f"stop {end:.1f} s"
            text[i][j] = f"{what}\n{ratio:.2f}x · {calls:.0f} calls"
        else:
            grid[i][j] = 3
            failed = "gave up" if ok == 0 else f"{100 * (1 - ok):.0f}% gave up"
            text[i][j] = f"{failed}\nat {end:.1f} s · {calls:.0f} calls"
    fig, ax = plt.subplots(figsize=(12.5, 0.55 * len(clients) + 1.6), dpi=80)
    ax.imshow(grid, cmap=COLOURS, vmin=0, vmax=3, aspect="auto")
    for i in range(len(clients)):
        for j in range(len(scenarios)):
            ax.text(j, i, text[i][j], ha="center", va="center", fontsize=7.5)
    ax.set_xticks(range(len(scenarios)), [SCENARIO_LABELS.get(s, s) for s in scenarios], fontsize=8.5)
    ax.set_yticks(range(len(clients)), clients, fontsize=8.5)
    ax.xaxis.tick_top()
    ax.set_xticks([x - 0.5 for x in range(1, len(scenarios))], minor=True)
    ax.set_yticks([y - 0.5 for y in range(1, len(clients))], minor=True)
    ax.grid(which="minor", color="white", linewidth=2)
    ax.tick_params(which="minor", length=0)
    ax.set_title(
        "Time to success (or stop) and ratio to the oracle, mean over seeds  ·  "
        "green ≤ 1.25x, yellow ≤ 2x, orange > 2x, red: gave up where the oracle succeeds",
        fontsize=9,
        pad=34,
    )
    fig.tight_layout()
    save(fig, out)


def amplification(rows: list[dict[str, str]], out: Path) -> None:
    clients = list(dict.fromkeys(r["client"] for r in rows))
    fig, ax = plt.subplots(figsize=(9, 5), dpi=80)
    styles = ["-", "--", "-.", ":"]
    colours = plt.get_cmap("tab20").colors
    for k, c in enumerate(clients):
        pts = sorted((int(r["agents"]), float(r["amplification"])) for r in rows if r["client"] == c)
        if not pts:
            continue
        xs, ys = zip(*pts)
        bold = c.startswith("default")
        ax.plot(
            xs,
            ys,
            marker="o",
            linestyle=styles[k % len(styles)],
            color={"default": "black", "default+fleet": "#1f77b4", "no_retry": "#7f7f7f"}.get(c, colours[(2 * k + 2) % 20]),
            linewidth=2.6 if bold else 1.3,
            markersize=5 if bold else 3.5,
            label=c,
        )
    ax.axhline(1.1, color="black", linewidth=1, linestyle=(0, (4, 2)))
    ax.annotate("target 1.1x", xy=(1, 1.1), xycoords=("axes fraction", "data"), xytext=(-4, 3),
                textcoords="offset points", ha="right", fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("agents (N)")
    ax.set_ylabel("offered load during a 60 s outage ÷ healthy load")
    ax.set_title("Load amplification against fleet size (virtual time)", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7.5, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    save(fig, out)


def main() -> None:
    results = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results")
    rows = read(results / "scenarios.csv")
    # The recommended candidate (if retry-sim chose one) as the last row, for comparison.
    rec = results / "recommended.txt"
    cands = results / "candidates.csv"
    if rec.exists() and cands.exists():
        best = rec.read_text().split("\n", 1)[0].strip()
        rows += [dict(r, client=f"{r['client']} (recommended)") for r in read(cands) if r["client"] == best]
    time_to_success(rows, results / "time_to_success.png")
    amplification(read(results / "amplification.csv"), results / "amplification.png")
    print(f"charts: wrote {results / 'time_to_success.png'} and {results / 'amplification.png'}")


if __name__ == "__main__":
    main()
