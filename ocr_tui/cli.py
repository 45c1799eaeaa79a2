def main(argv=None) -> int:
    return 0
