def net_price(gross: float, rate: float) -> float:
    return gross / (1 + rate)
