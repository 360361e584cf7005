"""The dashboard's ETA on a fake clock: within ±25% of the real time left once 10% of the run is
done, on a machine whose steps jitter, stall in bursts and pause for evaluations."""
import random

from tutor.training.runs import Eta


def noisy_run(total: int, seed: int) -> list[float]:
    """Cumulative seconds (pauses excluded) after each step 1..total."""
    rng = random.Random(seed)
    elapsed, out, burst = 0.0, [], 0
    for step in range(1, total + 1):
        if burst == 0 and rng.random() < 0.01:
            burst = rng.randint(2, 4)                 # another program takes the cores for a moment
        seconds = 0.05 * rng.uniform(0.5, 1.5) * (3 if burst else 1)
        burst = max(0, burst - 1)
        if step % 100 == 0:
            seconds += 0.4                            # an evaluation
        elapsed += seconds
        out.append(elapsed)
    return out


def test_eta_stays_within_a_quarter_of_the_real_time_left():
    for seed in range(20):
        total = 800
        elapsed = noisy_run(total, seed)
        eta = Eta(total)
        step = 0
        rng = random.Random(seed + 100)
        while step < total - 1:
            step = min(total - 1, step + rng.randint(1, 9))   # the UI hears of a step now and then
            eta.observe(step, elapsed[step - 1])
            if step >= total // 10:
                real = elapsed[-1] - elapsed[step - 1]
                guess = eta.seconds_left()
                assert abs(guess - real) <= 0.25 * real + 0.5, (seed, step, guess, real)


def test_no_eta_before_enough_steps_and_none_after_the_end():
    eta = Eta(300)
    assert eta.seconds_left() is None
    eta.observe(1, 0.1)
    eta.observe(5, 0.5)
    assert eta.seconds_left() is None
    eta.observe(25, 2.5)
    assert eta.seconds_left() == (300 - 25) * 0.1
    eta.observe(300, 30.0)
    assert eta.seconds_left() == 0.0


def test_the_eta_follows_a_machine_that_stays_slower():
    eta = Eta(2000)
    elapsed = 0.0
    for step in range(1, 1001):
        elapsed += 0.05 if step <= 300 else 0.1
        eta.observe(step, elapsed)
    # the window (steps 250-1000) is nearly all slow: the rest is timed at nearly 0.1 s a step,
    # where the mean of the whole run (0.085 s) would be 15% short
    assert 0.95 * 100 <= eta.seconds_left() <= 100
