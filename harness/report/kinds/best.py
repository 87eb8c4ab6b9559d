"""``best``: which value of a dimension wins, and by what margin."""
from __future__ import annotations

from gilbench.report.data.records import Cell
from gilbench.report.kinds.base import Judged, interval_text
from gilbench.report.kinds.efficiency import Efficiency
from gilbench.report.kinds.recorded import recorded_draws
from gilbench.report.numbers import cells, intervals
from gilbench.report.numbers.cells import NOT_RUN, spaced


class Best(Judged):
    """Which value of ``over`` gives the lowest (highest) ``of`` cell, and
    by what factor over the runner-up: runner-up / winner (winner /
    runner-up for the highest), so the margin is >= 1; significant when
    its interval lies above 1."""

    @property
    def consumed(self):
        return (self.spec["over"],)

    def candidates(self, lookup, dims):
        """[(over value, record, metric, resampled metrics)], reasons."""
        over, among = self.spec["over"], self.spec["among"]
        values = [v for v in lookup.values(dims, over)
                  if not among or v in among]
        found, reasons = [], []
        efficiency = (Efficiency({"cell": self.spec["of"], "note": ""},
                                 self.axes, self.ceiling)
                      if self.spec["of"]["kind"] == "efficiency" else None)
        for value in values:
            if efficiency is not None:
                metric = _ranked(efficiency, lookup, {**dims, over: value})
                if isinstance(metric, Cell):
                    reasons.append(metric.text)
                else:
                    found.append((value,) + metric)
                continue
            record, reason = lookup.get({**dims, over: value})
            if record is None:
                reasons.append(reason)
                continue
            metric = self._metric(record, lookup)
            if metric is None:
                reasons.append("n/a: not recorded")
                continue
            found.append((value, record) + metric)
        return found, reasons or [NOT_RUN]

    def _metric(self, record, lookup=None):
        """(number, its resamples or None) of the ``of`` cell; ``lookup``:
        the records beside it (a bounded index's peers)."""
        of = self.spec["of"]
        means = intervals.SHARED.means(record)
        if of["kind"] == "throughput":
            return (record.ops_per_loop / record.mean,
                    None if means is None else record.ops_per_loop / means)
        if of["kind"] == "recorded":
            number = record.recorded.get(of["key"])
            if number is None:
                return None
            return number, recorded_draws(of, record, lookup)
        ops = record.ops_per_loop if of["per_op"] else 1
        return (record.mean / ops, None if means is None else means / ops)

    def judged(self, lookup, dims):
        found, reasons = self.candidates(lookup, dims)
        failed = cells.problem(reasons)
        if not found or failed:
            return cells.missing(cells.first_reason(reasons)), None
        highest = self.spec["pick"] == "highest"
        ranked = sorted(found, key=lambda c: c[2], reverse=highest)
        rivals = [reason for reason in reasons if reason != NOT_RUN]
        if len(ranked) == 1 and rivals:  # no contest: say why
            return cells.missing(rivals[0]), None
        if len(ranked) == 1:
            return Cell("%s (only one measured)" % ranked[0][0],
                        flags=cells.flags(ranked[0][1], significant=False),
                        significant=False, winner=ranked[0][0],
                        brief=str(ranked[0][0])), None
        (win, _, win_m, win_s), (run, _, run_m, run_s) = ranked[:2]
        margin = win_m / run_m if highest else run_m / win_m
        interval = None
        if win_s is not None and run_s is not None:
            interval = intervals.bounds(win_s / run_s if highest
                                        else run_s / win_s)
        # A margin inside the smallest that matters is a tie.
        significant, same = intervals.decided(interval, self.margin)
        # The number is a margin, not something to plot along the rows:
        # the cell has no value, its wording carries the margin.
        return Cell("", None, flags=cells.flags(
            *[c[1] for c in found], significant=significant, same=same),
            interval=interval, significant=significant, same=same,
            winner=win), (win, run, margin)

    def said_same(self, found, text):
        return text  # a tie is in the wording

    def _word(self):
        """How the margin reads: a lowest time is "ahead"; a highest
        throughput "the next" one's multiple; a lowest efficiency (the
        worst scaler) "below" the next."""
        of, pick = self.spec["of"]["kind"], self.spec["pick"]
        if of == "efficiency" and pick == "lowest":
            return "below"
        ahead = (of == "value") == (pick == "lowest")
        return "ahead" if ahead else "the next"

    def wording(self, found, context):
        winner, runner_up, margin = context
        if found.same is not None:
            return spaced(self._tied(found, context),
                          interval_text(found.interval))
        word = {"ahead": "ahead of", "below": "below"}.get(self._word(),
                                                            "over")
        return spaced("%s, %s" % (winner, cells.multiple(margin)),
                       interval_text(found.interval),
                       "%s %s" % (word, runner_up))

    def compact(self, found, context):
        if found.same is not None:
            return "tied"
        return str(context[0])  # the winner; its margin is in the brief

    @staticmethod
    def _tied(found, context):
        winner, runner_up, _ = context
        return "%s and %s tied (within %s)" % (
            winner, runner_up, cells.within(found.same).split(" ")[-1])

    def brief(self, found, context):
        winner, _, margin = context
        if found.same is not None:
            return spaced(self._tied(found, context),
                          interval_text(found.interval))
        return spaced("%s, %s %s" % (winner, cells.multiple(margin),
                                      self._word()),
                       interval_text(found.interval))

    def describe(self, grid):
        of = self.spec["of"]
        what = {"value": "time", "throughput": "throughput",
                "recorded": of.get("key", ""),
                "efficiency": "efficiency against the %s"
                % of.get("against")}[of["kind"]]
        among = (" among %s" % ", ".join(map(str, self.spec["among"]))
                 if self.spec["among"] else "")
        return ("The %s with the %s %s%s, and its margin over the "
                "runner-up (>= 1); not significant (?) when the interval "
                "reaches 1. %s" % (self.spec["over"], self.spec["pick"],
                                   what, among, intervals.NOTE))

    def y_label(self):
        return self.spec["over"]  # a best-of names a winner: never drawn


def _ranked(efficiency, lookup, dims):
    """(record, efficiency, its draws or None) of an Efficiency kind at
    ``dims``, or a Cell saying why there is none."""
    found = efficiency.drawn(lookup, dims)
    if isinstance(found, Cell):
        return found
    value, draws, _, _, records = found
    return records[0], value, draws
