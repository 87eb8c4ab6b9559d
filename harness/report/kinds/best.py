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
        leader, second = ranked[:2]
        paired = self._paired(leader, second, highest)
        if paired is not None and paired[0] < 1.0:
            # Their duets, which cancel what the machine did while the
            # means were apart, put the runner-up ahead.
            leader, second = second, leader
            paired = self._paired(leader, second, highest)
        (win, win_r, win_m, win_s), (run, run_r, run_m, run_s) = (leader,
                                                                  second)
        if paired is not None:
            margin, draws = paired
        else:
            margin = win_m / run_m if highest else run_m / win_m
            draws = (None if win_s is None or run_s is None
                     else win_s / run_s if highest else run_s / win_s)
        interval = None if draws is None else intervals.bounds(draws)
        # A margin inside the smallest that matters is a tie.
        significant, same = intervals.decided(interval, self.margin)
        # The number is a margin, not something to plot along the rows:
        # the cell has no value, its wording carries the margin.
        return Cell("", None, flags=cells.flags(
            *[c[1] for c in found], significant=significant, same=same),
            interval=interval, significant=significant, same=same,
            winner=win, duel=() if paired is None else (win_r, run_r)), \
            (win, run, margin)

    def _paired(self, leader, second, highest):
        """(margin, its draws or None) of the two leading candidates
        ((value, record, metric, draws) each) from their records' ratio
        as intervals.SHARED reads it -- from their duets where they were
        measured together (gilbench.report.numbers.pairs), else from
        their means, as the candidates' own draws give it; None where
        the metric is not a record's mean (recorded, efficiency)."""
        kind = self.spec["of"]["kind"]
        if kind not in ("value", "throughput"):
            return None
        top, bottom = (leader, second) if highest else (second, leader)
        # A time over a time; a throughput is a count over a time.
        first, other = ((top[1], bottom[1]) if kind == "value"
                        else (bottom[1], top[1]))
        # The metrics' own factors (per op, ops per loop) besides the means.
        scale = (top[2] / bottom[2]) / (first.mean / other.mean)
        draws = intervals.SHARED.ratio(first, other)
        return (scale * intervals.ratio_point(first, other),
                None if draws is None else scale * draws)

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
