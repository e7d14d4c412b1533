"""Linear stability of the phantom-mesh tick (Phantom §3.2, eqs. 7 and 8) for one vertex.

The vertex's primary half (mass m/2) rests on a contact spring kc, integrated exactly enough
(leapfrog, h/200); its phantom half carries an elastic spring ke, on the midpoint rule of eq. 7
with the lagged half of G_i; eq. 8 couples them at every tick h. One tick is a linear map of
(q, v, q~, v~, grad V at the last midpoint, the halves' mean gap over the last tick); the script
prints its spectral radius (above 1: energy grows by that factor per tick) over a grid of
omega_c*h = sqrt(kc/(m/2))*h and omega_e*h = sqrt(ke/m)*h, for eq. 8 as written and for eight
variants:

  exact   lambda solved so that the primary, moving under kc, meets the phantom at the next tick
  relaxed eq. 8 closing only half of the gap per tick (a Baumgarte factor of 1/2)
  split   9/10 of the mass on the primary instead of 1/2
  project eq. 8, then both halves put at their mass-weighted mean position and velocity after
          every tick (linear and angular momentum kept; a no-op without contact)
  implicit eq. 8 with the primary predicted under its contact spring by one backward Euler step
          over the tick instead of on a straight line (the stiffness known, as a diagonal contact
          stiffness from the active layers would give it)
  mean    eq. 8 on the gap between the two halves' mean positions over the last tick instead of
          their gap at the tick (a mollified constraint: the primary's contact oscillation within
          a tick averaged out, as the mollified impulse method averages fast motion)
  damped  eq. 8 with a damper on the halves' relative velocity as well, c = mu/h (mu = m/4 the
          pair's reduced mass): the primary feels it at every substep, the phantom, whose velocity
          changes only at ticks, its opposite at the next tick
  spread  eq. 8's impulse applied to the primary as a constant force over the tick that follows
          (lambda from the primary's path under that force) instead of as one kick at the tick
  edamped eq. 8 with a damper on the phantom's elastic spring as well, in its implicit step:
          c = 2 zeta sqrt(ke m), zeta = 0.1 (ZETA), as stretch and bend damping would give
  pair    eq. 8 with each contact kick given to both halves alike, on the vertex's whole mass m
          (kc then acts on m: rows are omega_c*h = sqrt(kc/m)*h for this rule), so that contact
          never moves the halves apart (not variational: angular momentum is not kept)

Run: python3 docs/reproductions/phantom_linear_stability.py   (needs numpy)
See docs/phantom.md, "Why the solve fails in contact".
"""
import numpy as np

SUBSTEPS = 200
ZETA = 0.1


def primary_response(kc, mp, h):
    """The map (q, v) -> q after h under the contact spring, as leapfrog with SUBSTEPS steps."""
    out = []
    for q, v in ((1.0, 0.0), (0.0, 1.0)):
        for _ in range(SUBSTEPS):
            q += v * h / SUBSTEPS
            v -= kc * q / mp * h / SUBSTEPS
        out.append(q)
    return out


def tick(state, m, kc, ke, h, rule):
    # the sixth entry: the halves' mean gap over the last tick ("mean"), or the damper's impulse
    # still owed to the phantom ("damped")
    q, v, qt, vt, g_last, sixth = state
    mp = m * (0.9 if rule == "split" else 0.5)
    mq = m - mp
    beta = 0.5 if rule == "relaxed" else 1.0
    damper = m / 4 / h if rule == "damped" else 0.0
    owed = 0.0
    if rule == "damped":
        vt += sixth / mq
    if rule == "exact":
        a_q, a_v = primary_response(kc, mp, h)
        reach, lever = a_q * q + a_v * v, a_v  # q(t + h) = reach + lever * (lambda h) / mp
    elif rule == "implicit":
        damping = 1 + h * h * kc / mp
        reach, lever = (q + v * h) / damping, h / damping
    elif rule == "spread":
        reach, lever = q + v * h, h / 2  # q(t + h) = q + v h + (lam / mp) h / 2
    else:
        gap = sixth if rule == "mean" else q - qt
        reach, lever = qt + beta * gap + v * h, h
    # eq. 7 with lambda eliminated: the phantom's x = q~ + h v~+ must equal reach + lever*lam/mp
    # x = q~ + h v~ - h (lam + imp)/mq, imp = (h/2)(ke (q~ + x)/2 + g_last)
    w = h * mp / (lever * mq)
    # the phantom's damper (edamped): the impulse c (x - q~) over the step, implicit in x
    c = 2 * ZETA * np.sqrt(ke * m) if rule == "edamped" else 0.0
    x = (qt + h * vt - h * h / (2 * mq) * (ke * qt / 2 + g_last) + h * c * qt / mq + w * reach) / (
        1 + h * h * ke / (4 * mq) + h * c / mq + w
    )
    lam = (x - reach) * mp / lever
    g = ke * (qt + x) / 2
    impulse = (g + g_last) * h / 2 + c * (x - qt)
    if rule != "spread":
        v += lam / mp
    vt -= (lam + impulse) / mq
    qt_start = qt
    qt += vt * h
    primary_mean = 0.0
    dt = h / SUBSTEPS
    if rule == "pair":
        # contact kicks both halves alike on the whole mass; the phantom drifts with them
        qt = qt_start
        for _ in range(SUBSTEPS):
            q_start = q
            q += v * dt
            qt += vt * dt
            primary_mean += (q_start + q) / (2 * SUBSTEPS)
            kick = kc * q / m * dt
            v -= kick
            vt -= kick
    for _ in range(SUBSTEPS if rule != "pair" else 0):
        q_start = q
        if rule == "spread":
            v += lam / mp / SUBSTEPS / 2  # the constant force, as half kicks around each drift
        q += v * dt
        if rule == "spread":
            v += lam / mp / SUBSTEPS / 2
        primary_mean += (q_start + q) / (2 * SUBSTEPS)
        v -= kc * q / mp * dt
        if rule == "damped":
            f = damper * (v - vt) * dt
            v -= f / mp
            owed += f
    mean_gap = primary_mean - (qt_start + qt) / 2
    if rule == "project":
        q = qt = (mp * q + mq * qt) / m
        v = vt = (mp * v + mq * vt) / m
    return np.array([q, v, qt, vt, g, owed if rule == "damped" else mean_gap])


def spectral_radius(m, kc, ke, h, rule):
    columns = [tick(e, m, kc, ke, h, rule) for e in np.eye(6)]
    return max(abs(np.linalg.eigvals(np.array(columns).T)))


def main():
    m, h = 1e-3, 1e-3
    omega_c = [0.0, 0.14, 0.45, 1.4, 2.4, 4.5, 14.0, 40.0]
    omega_e = [0.003, 0.3, 1.0, 3.2, 10.0, 32.0]
    rules = ("eq8", "exact", "relaxed", "split", "project", "implicit", "mean", "damped", "spread", "edamped", "pair")
    for rule in rules:
        print(f"\n{rule}: spectral radius per tick; rows omega_c*h, columns omega_e*h")
        print("          " + " ".join(f"{w:8.3g}" for w in omega_e))
        for wc in omega_c:
            kc = (wc / h) ** 2 * m * (1.0 if rule == "pair" else 0.5)
            radii = [spectral_radius(m, kc, (we / h) ** 2 * m, h, rule) for we in omega_e]
            print(f"{wc:8.3g}  " + " ".join(f"{r:8.4f}" for r in radii))


if __name__ == "__main__":
    main()
