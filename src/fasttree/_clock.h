/* A monotonic clock in seconds, for spacing out the kernels' signal checks. */
#ifndef FASTTREE_CLOCK_H
#define FASTTREE_CLOCK_H

#ifdef _WIN32
#include <windows.h>
static double monotonic_seconds(void)
{
    LARGE_INTEGER count, frequency;
    QueryPerformanceCounter(&count);
    QueryPerformanceFrequency(&frequency);
    return (double)count.QuadPart / (double)frequency.QuadPart;
}
#else
#include <time.h>
static double monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}
#endif

#endif
