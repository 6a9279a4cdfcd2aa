"""What the benchmark scripts share to read paired runs: the 95% interval of a median."""

import random
import statistics


def interval(pairs, rounds=2000, seed=32):
    """The 95% interval of the median of `pairs`: the median of as many drawn with replacement,
    `rounds` times, with a fixed seed, so that the same runs always print the same interval."""
    if not pairs:
        return float("nan"), float("nan")
    draw = random.Random(seed)
    medians = sorted(statistics.median(draw.choices(pairs, k=len(pairs))) for _ in range(rounds))
    return medians[int(0.025 * rounds)], medians[int(0.975 * rounds) - 1]
