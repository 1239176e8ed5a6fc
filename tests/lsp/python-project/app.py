from pricing import net_price


def total(items: list[float]) -> float:
    return sum(net_price(i, 0.2) for i in items)
