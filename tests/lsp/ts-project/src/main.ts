import { area } from "./area";

export const total: number = area(2) + area(3);
