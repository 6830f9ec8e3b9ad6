"""The exactness lab: a vectorized exact Monte Carlo of rounds and a float verifier written the
way engines write it, with the known engine bugs to inject."""
