#!/usr/bin/env python3
"""Fits the degree-9 polynomial P of EXPPD (e^r = 1 + r + r²·P(r) on
[−ln2/2, ln2/2]) as a Chebyshev approximation with mpmath, and reports the
error of the float64-rounded coefficients in ulps. The coefficients printed
for degree 9 are the e11..e2 constants of math_amd64.py.
"""
import mpmath as mp
mp.mp.dps = 40
L = mp.log(2)/2 + mp.mpf('1e-6')
def q(r):
    if abs(r) < mp.mpf('1e-10'):
        return mp.mpf(1)/2 + r/6
    return (mp.exp(r) - 1 - r)/r**2
for deg in (8, 9, 10):
    poly, err = mp.chebyfit(q, [-L, L], deg+1, error=True)
    # poly is highest-degree first
    import struct
    cs = [float(c) for c in poly]
    # evaluate max error with double coefficients (exact arithmetic)
    worst = 0
    for i in range(2001):
        r = -L + 2*L*i/2000
        approx = mp.polyval([mp.mpf(c) for c in cs], r)
        e = abs((1 + r + r*r*approx) - mp.exp(r))/mp.exp(r)
        worst = max(worst, e)
    print(deg, "cheb err", mp.nstr(err, 5), "rel err in e^r (ulps)", mp.nstr(worst / mp.mpf(2)**-53, 5))
    if deg == 9 or deg == 10:
        print([ "0x%016x" % struct.unpack('<Q', struct.pack('<d', c))[0] for c in cs])
