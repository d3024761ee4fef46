"""The one exception type of the package: a bad file, bad content or a bad argument."""


class OinfError(ValueError):
    """Raised with a message naming the entry and the problem, like the C++ reader/writer."""
